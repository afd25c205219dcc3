// What every form view does: build its parts, keep alternatives in step, restore its state
// from the URL, submit through the URL, run one request at a time with a loading state, and
// show problems beside their fields.
import { ApiError, Latest } from '../api.js';
import { applyAlternatives, clearErrors, formToParams, paramsToForm, showProblem } from '../forms.js';
import { buildParts } from '../parts.js';
import { navigate } from '../router.js';

// `spec`: {name, form (selector), parts (options per part), setup(form, section),
// run(form, signal) -> answer, render(answer, result, form), summary(answer) -> status text,
// always (run without URL state too)}. Returns the view ({init, show}).
export function formView(spec) {
  const latest = new Latest();
  return {
    init(section) {
      const form = section.querySelector(spec.form);
      buildParts(form, spec.parts || {});
      form.addEventListener('change', () => applyAlternatives(form));
      applyAlternatives(form);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        navigate(spec.name, formToParams(form));
      });
      if (spec.setup) spec.setup(form, section);
    },
    async show(section, params) {
      const form = section.querySelector(spec.form);
      const status = section.querySelector('.status');
      const result = section.querySelector('.result');
      if ([...params.keys()].length === 0 && !spec.always) return;  // a bare view: the form only
      paramsToForm(form, params);
      applyAlternatives(form);
      clearErrors(form);
      status.textContent = 'Working…';
      section.setAttribute('aria-busy', 'true');
      result.classList.add('stale');
      let answer;
      try {
        answer = await latest.run((signal) => spec.run(form, signal));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;  // not the API's answer: a bug, to the console
        showProblem(form, err);
        status.textContent = 'The request was not accepted: see the form.';
        return;
      } finally {
        if (!latest.controller) {
          section.removeAttribute('aria-busy');
          result.classList.remove('stale');
        }
      }
      if (answer === undefined) return;  // superseded by a newer request
      result.replaceChildren();
      try {
        spec.render(answer, result, form);
        status.textContent = spec.summary ? spec.summary(answer) : 'Done.';
      } catch (err) {
        status.textContent = 'The answer could not be shown (a dashboard error; see the console).';
        throw err;
      }
    },
  };
}

// A chart in a titled figure; returns [figure, canvas].
export function chartBox(title, className = 'chart') {
  const figure = document.createElement('figure');
  figure.className = className;
  const caption = document.createElement('figcaption');
  caption.textContent = title;
  const holder = document.createElement('div');
  holder.className = 'canvas-holder';
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', title);
  holder.append(canvas);
  figure.append(caption, holder);
  return [figure, canvas];
}
