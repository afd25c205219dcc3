#!/usr/bin/env python3
"""Counts multiply-accumulates (MACs), parameters and activation elements of the CNN
presets from their published layer shapes. The results are the shape constants of
model/workload_presets.cc (documented in docs/model.md). Standard library only."""


class Net:
    def __init__(self):
        self.macs = 0
        self.params = 0
        self.act = 0  # elements of every conv/bn/relu output (what backward keeps)
        # Model-zoo convention (fvcore's activation count, as timm publishes it): output
        # elements of conv and linear layers only.
        self.zoo_act = 0
        self.depthwise_macs = 0
        self.convs = 0

    def conv(self, cin, cout, k, hw_out, groups=1, bn=True, relu=True):
        macs = hw_out * hw_out * cout * (cin // groups) * k * k
        self.macs += macs
        if groups > 1:
            self.depthwise_macs += macs
        self.convs += 1
        self.params += cout * (cin // groups) * k * k
        outs = hw_out * hw_out * cout
        self.act += outs * (1 + bn + relu)
        self.zoo_act += outs

    def conv3d(self, cin, cout, k, d_out, norm=True, relu=True, transposed=False):
        # A transposed conv (kernel 2, stride 2) reads d_out/2 per side and writes each
        # output voxel from one input voxel: d_out^3 * cin * cout MACs, 8 cin cout params.
        kernel = 8 if transposed else k ** 3
        macs = d_out ** 3 * cout * cin * (1 if transposed else kernel)
        self.macs += macs
        self.convs += 1
        self.params += cout * cin * kernel
        outs = d_out ** 3 * cout
        self.act += outs * (1 + norm + relu)
        self.zoo_act += outs

    def linear(self, cin, cout):
        self.macs += cin * cout
        self.params += cin * cout
        self.zoo_act += cout


def bottleneck_stage(n, cin, mid, blocks, hw_in, stride):
    hw = hw_in // stride
    for i in range(blocks):
        s_in = cin if i == 0 else mid * 4
        n.conv(s_in, mid, 1, hw_in if i == 0 else hw)
        n.conv(mid, mid, 3, hw)
        n.conv(mid, mid * 4, 1, hw, relu=False)
        if i == 0:
            n.conv(s_in, mid * 4, 1, hw, relu=False)  # projection shortcut
        n.act += hw * hw * mid * 4  # add + relu output
    return hw


def resnet50(size=224, stages=4, layer3_stride=2):
    n = Net()
    hw = size // 2
    n.conv(3, 64, 7, hw)
    hw = hw // 2  # max pool
    hw = bottleneck_stage(n, 64, 64, 3, hw, 1)
    hw = bottleneck_stage(n, 256, 128, 4, hw, 2)
    hw = bottleneck_stage(n, 512, 256, 6, hw, layer3_stride)
    if stages == 4:
        hw = bottleneck_stage(n, 1024, 512, 3, hw, 2)
        n.linear(2048, 1000)
    return n, hw


def resnet18(size=224):
    n = Net()
    hw = size // 2
    n.conv(3, 64, 7, hw)
    hw //= 2
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        for i in range(2):
            s = stride if i == 0 else 1
            hw_out = hw // s
            n.conv(cin if i == 0 else cout, cout, 3, hw_out)
            n.conv(cout, cout, 3, hw_out, relu=False)
            if i == 0 and (s != 1 or cin != cout):
                n.conv(cin, cout, 1, hw_out, relu=False)
            n.act += hw_out * hw_out * cout
            hw = hw_out
        cin = cout
    n.linear(512, 1000)
    return n


def ssd300_resnet50():
    # NVIDIA DeepLearningExamples SSD300 v1.1: ResNet-50 without conv5_x, conv4_x stride 1,
    # five extra blocks (1x1 then 3x3 stride 2, BN), six 3x3 heads (4 box coords and 81
    # class scores per default box).
    n, hw = resnet50(300, stages=3, layer3_stride=1)
    maps = [(1024, hw)]
    extras = [(1024, 256, 512), (512, 256, 512), (512, 128, 256), (256, 128, 256), (256, 128, 256)]
    sizes = [19, 10, 5, 3, 1]
    for (cin, mid, cout), out_hw in zip(extras, sizes):
        n.conv(cin, mid, 1, maps[-1][1])
        n.conv(mid, cout, 3, out_hw)
        maps.append((cout, out_hw))
    for (c, s), boxes in zip(maps, [4, 6, 6, 6, 4, 4]):
        n.conv(c, boxes * (4 + 81), 3, s, bn=False, relu=False)
    return n


def efficientnet_b0():
    # Tan & Le 2019, Table 1: stages (expand ratio, channels, repeats, stride, kernel),
    # squeeze-and-excitation with 1/4 of the block's input channels.
    n = Net()
    hw = 112
    n.conv(3, 32, 3, hw)
    cin = 32
    for e, c, r, s, k in ((1, 16, 1, 1, 3), (6, 24, 2, 2, 3), (6, 40, 2, 2, 5), (6, 80, 3, 2, 3),
                          (6, 112, 3, 1, 5), (6, 192, 4, 2, 5), (6, 320, 1, 1, 3)):
        for i in range(r):
            stride = s if i == 0 else 1
            hidden = cin * e
            if e != 1:
                n.conv(cin, hidden, 1, hw)
            hw //= stride
            n.conv(hidden, hidden, k, hw, groups=hidden)
            squeeze = max(1, cin // 4)
            n.linear(hidden, squeeze)  # squeeze-and-excitation: two 1x1 convs on pooled
            n.linear(squeeze, hidden)
            n.act += hw * hw * hidden
            n.conv(hidden, c, 1, hw, relu=False)
            cin = c
    n.conv(cin, 1280, 1, hw)
    n.linear(1280, 1000)
    return n


def nnunet_3d(patch=128, in_channels=4, classes=4):
    # NVIDIA DeepLearningExamples PyTorch nnU-Net (MONAI DynUNet) for MSD Task01 BrainTumour:
    # 4 MRI modalities in, patch 128^3, kernels 3^3, strides 1 then 2 x5, filters
    # min(2^(5+i), 320); each level two conv-InstanceNorm-LeakyReLU layers (the first with
    # the level's stride); decoder: transposed conv (2, stride 2), concat with the skip, two
    # convs; a 1^3 output conv.
    n = Net()
    filters = [min(2 ** (5 + i), 320) for i in range(6)]
    sizes = [patch // 2 ** i for i in range(6)]
    cin = in_channels
    for c, d in zip(filters, sizes):
        n.conv3d(cin, c, 3, d)
        n.conv3d(c, c, 3, d)
        cin = c
    for i in range(4, -1, -1):
        n.conv3d(filters[i + 1], filters[i], 2, sizes[i], norm=False, relu=False, transposed=True)
        n.conv3d(2 * filters[i], filters[i], 3, sizes[i])
        n.conv3d(filters[i], filters[i], 3, sizes[i])
    n.conv3d(filters[0], classes, 1, sizes[0], norm=False, relu=False)
    return n


if __name__ == "__main__":
    r50, _ = resnet50()
    for name, net in (("ResNet-50 @224", r50), ("ResNet-18 @224", resnet18()),
                      ("EfficientNet-B0 @224", efficientnet_b0()),
                      ("SSD300 ResNet-50 @300", ssd300_resnet50()),
                      ("nnU-Net 3D @128^3", nnunet_3d())):
        print(f"{name}: {net.macs / 1e9:.3f} GMAC, {net.params / 1e6:.2f} M conv/fc params, "
              f"{net.act / 1e6:.1f} M activation elements (conv/bn/relu), "
              f"{net.zoo_act / 1e6:.2f} M model-zoo activations (conv/linear outputs), "
              f"depthwise share {net.depthwise_macs / net.macs:.3f}, {net.convs} conv layers")
