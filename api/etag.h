// Conditional GET for catalog reads. Every catalog write bumps the catalog generation
// (db/catalog_writer.h), so one URL answers the same body for as long as the generation
// and the server version stay: the ETag is made of both. A client that sends it back in
// If-None-Match gets 304 Not Modified without the body.
#pragma once

#include <string>
#include <string_view>

#include <httplib.h>

namespace gpuplan::api {

// GET or HEAD of a catalog read (GPUs, clouds, regions, instances, exchange rates, spot
// history, workload presets): the answers that depend on nothing but the catalog and the
// request's URL. Not the export (streamed; it names its own date).
bool IsCatalogRead(const httplib::Request& req);

// "\"v0.1.0-g42\"".
std::string CatalogEtag(std::string_view version, long long generation);

// Whether If-None-Match (a list of tags, weak or strong, or "*") holds `etag`.
bool IfNoneMatchHolds(const std::string& if_none_match, const std::string& etag);

// Cache-Control of catalog reads: caches keep them but ask again each time (the ETag makes
// that a 304); private when reads need a key.
inline constexpr const char* kCatalogCacheControl = "no-cache";
inline constexpr const char* kPrivateCatalogCacheControl = "private, no-cache";

}  // namespace gpuplan::api
