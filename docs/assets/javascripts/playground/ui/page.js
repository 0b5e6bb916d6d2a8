/**
 * The playground on its page: the form, the run, and what a finished run shows (chart, table,
 * command line, link), the step trace and the "Is it lost?" box. The URL follows the form, and a
 * URL that holds an experiment runs it when the page opens.
 *
 * State the tests read: the root's `data-state` is `running`, `done` or `error` (after a bad
 * input), and `data-ran-in` is `worker` or `page`.
 */

import { FORMATS, firstLostStep, getFormat, formatShortest, inputsMatchFpsum, isLost, parseNumbers, traceStep } from "../core/index.js";
import { chart, legend } from "./chart.js";
import { commandFor } from "./command.js";
import { el, grouped } from "./dom.js";
import { makeFields, readFields, writeFields } from "./form.js";
import { inputLabel, lookOf } from "./looks.js";
import { Cancelled, ReaderError, Runner } from "./runner.js";
import { fromQuery, toQuery } from "./state.js";
import { resultsTable } from "./table.js";
import { TRACED, stepView } from "./trace.js";

/** @typedef {import("./state.js").Experiment} Experiment */
/** @typedef {import("./experiment.js").Outcome} Outcome */

/**
 * @param {string} name
 * @returns {string}
 */
function formatLabel(name) {
  const found = FORMATS.find((f) => f.name === name);
  return found ? found.label : name;
}

/**
 * A heading and a section of the playground.
 * @param {string} id
 * @param {string} title
 * @param {Array<Node | string | null>} children
 * @returns {HTMLElement}
 */
function section(id, title, children) {
  return el("section", { class: "fpsum-pg-section", "aria-labelledby": id }, [el("h2", { id }, [title]), ...children]);
}

/**
 * In words, what the chart of `outcome` shows: its accessible name.
 * @param {Experiment} e
 * @param {Outcome} outcome
 * @returns {string}
 */
function describe(e, outcome) {
  const what = e.x === null ? `${grouped(e.n)} inputs, ${inputLabel(e.inputs)}` : `your ${grouped(outcome.values.length)} numbers`;
  const ends = outcome.results.map((r) => `${lookOf(r.method).label} ends at ${r.shown}`).join(", ");
  return `Running totals and errors in ${formatLabel(e.format)} of ${what}: ${ends}; the exact total is ${outcome.exactShown}.`;
}

/**
 * Set up the playground in `root`, replacing what it shows without JavaScript.
 * @param {HTMLElement} root
 * @param {string | null} scriptUrl  the bundle's address, which it starts as its worker over HTTP
 */
export function start(root, scriptUrl) {
  root.setAttribute("data-playground-ready", "");
  const runner = new Runner(scriptUrl);
  const fields = makeFields();
  // The progress bar keeps its place when idle (hidden from view, not from the layout): nothing moves.
  const progress = el("progress", { max: 1, value: 0, class: "fpsum-pg-idle", "aria-label": "progress of the run" });
  const status = el("p", { class: "fpsum-pg-status", role: "status" });
  const problem = el("p", { class: "fpsum-pg-problem", role: "alert" });
  const results = el("div", { class: "fpsum-pg-results" });
  const command = el("div", { class: "fpsum-pg-command" });

  // The step trace.
  const traceMethod = el("select", { id: "pg-trace-method" }, TRACED.map((m) => el("option", { value: m }, [lookOf(m).label])));
  const traceK = el("input", { id: "pg-trace-k", type: "text", inputmode: "numeric", autocomplete: "off", size: 9, value: "1" });
  const traceShow = el("button", { type: "submit", class: "md-button" }, ["Show step k"]);
  const traceFirst = el("button", { type: "button", class: "md-button", "data-action": "first-lost" }, ["First lost step"]);
  const traceOut = el("div", { class: "fpsum-pg-trace-out", "aria-live": "polite" });
  const traceForm = el("form", { id: "pg-trace-form", class: "fpsum-pg-inline", novalidate: true, "aria-label": "trace a step" }, [
    el("div", { class: "fpsum-pg-field" }, [el("label", { for: traceMethod.id }, ["Method"]), traceMethod]),
    el("div", { class: "fpsum-pg-field" }, [el("label", { for: traceK.id }, ["Step k"]), traceK]),
    el("div", { class: "fpsum-pg-actions" }, [traceShow, traceFirst])]);

  // "Is it lost?"
  const lostTotal = el("input", { id: "pg-lost-total", type: "text", inputmode: "decimal", autocomplete: "off", size: 12, value: "2048" });
  const lostInput = el("input", { id: "pg-lost-input", type: "text", inputmode: "decimal", autocomplete: "off", size: 12, value: "0.9" });
  const lostOut = el("div", { class: "fpsum-pg-lost-out", "aria-live": "polite" });
  const lostForm = el("form", { id: "pg-lost-form", class: "fpsum-pg-inline", novalidate: true, "aria-label": "is it lost" }, [
    el("div", { class: "fpsum-pg-field" }, [el("label", { for: lostTotal.id }, ["Running total s"]), lostTotal]),
    el("div", { class: "fpsum-pg-field" }, [el("label", { for: lostInput.id }, ["Input x"]), lostInput]),
    el("div", { class: "fpsum-pg-actions" }, [el("button", { type: "submit", class: "md-button" }, ["Is it lost?"])])]);

  root.replaceChildren(section("pg-experiment", "The experiment", [fields.form, progress, status, problem]));
  // The rest in a task of its own, so that no task of the page's start is long on a slow phone.
  const rest = () => root.append(
    section("pg-results", "The results", [results, command]),
    section("pg-trace", "Every step, traced", [
      el("p", {}, ["Pick a step k of the last run, or jump to the first step where an input was lost."]),
      traceForm, traceOut]),
    section("pg-lost", "Is it lost?", [
      el("p", {}, ["One addition in the format chosen above: type a running total and an input, each rounded to the format first."]),
      lostForm, lostOut]),
  );

  /** @type {{experiment: Experiment, outcome: Outcome} | null} */
  let last = null;
  let chartWidth = 0;

  const drawChart = () => {
    const box = results.querySelector(".fpsum-pg-chart");
    if (!last || !box) return;
    const width = Math.floor(box.clientWidth);
    if (width <= 0 || width === chartWidth) return;
    chartWidth = width;
    box.replaceChildren(chart(last.outcome, width, describe(last.experiment, last.outcome)));
  };
  if (typeof ResizeObserver === "function") {
    let pending = false;
    new ResizeObserver(() => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; drawChart(); });
    }).observe(results);
  }

  // After a failed run the results of the last one that worked stay, marked as such in words and looks.
  const staleNote = el("p", { class: "fpsum-pg-stale" }, [
    "These are the results of the previous run: the last one failed (see the message above the results)."]);
  const markStale = () => {
    if (!last || !results.parentElement) return;
    const box = /** @type {HTMLElement} */ (results.parentElement);
    box.setAttribute("data-stale", "");
    if (!staleNote.isConnected) results.before(staleNote);
  };
  const unmarkStale = () => {
    results.parentElement?.removeAttribute("data-stale");
    staleNote.remove();
  };

  /** @param {string} message */
  const fail = (message) => {
    problem.textContent = message;
    markStale();
    status.textContent = "";
    progress.classList.add("fpsum-pg-idle");
    root.setAttribute("data-state", "error");
  };

  /**
   * @param {Experiment} e
   * @param {Outcome} outcome
   */
  const show = (e, outcome) => {
    last = { experiment: e, outcome };
    chartWidth = 0;
    unmarkStale();
    const link = el("a", { href: toQuery(e), class: "fpsum-pg-link" }, ["Link to this experiment"]);
    const notes = [];
    if (e.x === null && !inputsMatchFpsum(e.inputs)) {
      notes.push(el("p", { class: "fpsum-pg-note" }, [`The page draws ${inputLabel(e.inputs)} inputs otherwise than the model: `
        + "the results are the model's on these inputs, not on fpsum's draw."]));
    }
    results.replaceChildren(
      el("div", { class: "fpsum-pg-chart" }), legend(e.methods),
      resultsTable(outcome, getFormat(e.format)), ...notes, el("p", {}, [link]));
    requestAnimationFrame(() => setTimeout(drawChart, 0)); // drawn in a task of its own, once laid out
    const cmd = commandFor(e);
    const copy = el("button", { type: "button", class: "md-button fpsum-pg-copy" }, ["Copy the command"]);
    copy.addEventListener("click", () => {
      const done = () => { copy.textContent = "Copied"; };
      if (navigator.clipboard) navigator.clipboard.writeText(cmd.text).then(done, () => { copy.textContent = "Select the command to copy it"; });
    });
    // Not a <pre>: mkdocs-material gives the page's own blocks their copy buttons as it loads, not this one.
    const block = el("div", { class: "fpsum-pg-cmd", tabindex: "0", role: "region", "aria-label": "the fpsum command" },
      [el("code", { "data-command": "" }, [cmd.text])]);
    const parts = [el("p", {}, ["The same numbers from a terminal, with the model installed:"]), block,
      el("div", { class: "fpsum-pg-actions" }, [copy])];
    if (cmd.file) {
      const text = e.x !== null ? e.x.trim().split(/[\s,]+/).join("\n") + "\n"
        : Array.from(outcome.values, formatShortest).join("\n") + "\n";
      const href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
      parts.push(el("p", {}, [el("a", { href, download: cmd.file, "data-file": cmd.file }, [`Download ${cmd.file}`])]));
    }
    parts.push(el("p", {}, [cmd.note]));
    command.replaceChildren(...parts);
  };

  /** @param {Experiment} e */
  const run = (e) => {
    problem.textContent = "";
    status.textContent = `Running ${e.methods.length} methods…`;
    progress.classList.remove("fpsum-pg-idle");
    progress.value = 0;
    root.setAttribute("data-state", "running");
    runner.run(e, (done) => { progress.value = done; }).then((outcome) => {
      progress.classList.add("fpsum-pg-idle");
      show(e, outcome);
      status.textContent = `Done: ${grouped(outcome.values.length)} inputs, ${e.methods.length} methods.`;
      root.setAttribute("data-ran-in", runner.where);
      root.setAttribute("data-state", "done");
    }, (error) => {
      if (error instanceof Cancelled) return;
      fail(error instanceof ReaderError ? `Your numbers: ${error.message}` : `The run failed: ${error.message}`);
    });
  };

  fields.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { experiment, problems } = readFields(fields);
    if (problems.length) { fail(problems.join("; ") + "."); return; }
    history.replaceState(history.state, "", toQuery(experiment) + location.hash);
    run(experiment);
  });

  /** @param {number} k */
  const showStep = (k) => {
    if (!last) return;
    const { experiment, outcome } = last;
    const method = traceMethod.value;
    const step = traceStep(method, outcome.values, experiment.format, k);
    const where = `${lookOf(method).label}, step ${grouped(k)} of ${grouped(outcome.values.length)}, in ${formatLabel(experiment.format)}:`;
    traceOut.replaceChildren(el("p", {}, [where]), stepView(step));
  };
  traceForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!last) { traceOut.textContent = "Run an experiment first."; return; }
    const n = last.outcome.values.length;
    const text = traceK.value.trim();
    const k = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(k >= 1 && k <= n)) { traceOut.textContent = `Step k must be a whole number from 1 to ${n}, not "${traceK.value}".`; return; }
    showStep(k);
  });
  traceFirst.addEventListener("click", () => {
    if (!last) { traceOut.textContent = "Run an experiment first."; return; }
    const k = firstLostStep(traceMethod.value, last.outcome.values, last.experiment.format);
    if (k === null) { traceOut.textContent = `No input was lost in the ${lookOf(traceMethod.value).label} sum.`; return; }
    traceK.value = String(k);
    showStep(k);
  });

  lostForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const format = fields.format.value;
    try {
      const [s, x] = [lostTotal, lostInput].map((input, i) => {
        const values = parseNumbers(input.value, format);
        if (values.length !== 1) throw new Error(`${i ? "the input" : "the total"} must be one number`);
        return values[0];
      });
      lostOut.replaceChildren(el("p", {}, [`In ${formatLabel(format)}:`]), stepView(isLost(s, x, format)));
    } catch (error) {
      lostOut.textContent = error instanceof Error ? error.message : String(error);
    }
  });

  const { experiment, problems } = fromQuery(location.search);
  writeFields(fields, experiment);
  if (problems.length) fail(`The link asks for something the playground cannot do: ${problems.join("; ")}. It runs the rest.`);
  // The first run starts in a task of its own too.
  setTimeout(() => {
    rest();
    setTimeout(() => {
      const keep = problem.textContent;
      run(experiment);
      if (keep) problem.textContent = keep;
    }, 0);
  }, 0);
}
