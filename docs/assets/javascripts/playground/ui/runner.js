/**
 * The run controller: runs an experiment off the page's thread where it can, and keeps the page
 * responsive where it cannot.
 *
 * Served over HTTP the bundle starts itself as a Web Worker (same origin) and the experiment runs
 * there. Opened from disk (file://) browsers refuse a worker script from a file, and a worker from
 * a blob is no way out on this site: there the offline search's iframe-worker shim stands in for
 * Worker, and it cannot load a blob. So from disk the experiment runs on the page's thread one
 * method at a time, with a pause between methods for the page to draw and answer.
 * A new run cancels the one before it: its worker is stopped, or its loop stops at the next pause.
 */

import { InputError } from "../core/index.js";
import { steps } from "./experiment.js";

/** @typedef {import("./experiment.js").Outcome} Outcome */
/** @typedef {import("./state.js").Experiment} Experiment */

/** A run that a later run replaced: not an error to show. */
export class Cancelled extends Error {}

/** An error in what the reader asked for (bad numbers, say): its message is for the reader. */
export class ReaderError extends Error {}

/** @returns {Promise<void>} a pause for the page to draw and answer input */
function pause() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export class Runner {
  /**
   * @param {string | null} scriptUrl  the bundle's own address, to start as a worker (null: never)
   */
  constructor(scriptUrl) {
    /** @type {string | null} */
    this.scriptUrl = scriptUrl && /^https?:/.test(scriptUrl) ? scriptUrl : null;
    this.generation = 0;
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {(() => void) | null} */
    this.cancelRunning = null;
    /** "worker" or "page": where the last run ran (the tests read it from the page). */
    this.where = "page";
  }

  /**
   * Run `experiment`; `progress` hears the fraction done. Rejects with Cancelled if another run
   * starts first, with ReaderError for a mistake in the reader's input.
   * @param {Experiment} experiment
   * @param {(done: number) => void} progress
   * @returns {Promise<Outcome>}
   */
  run(experiment, progress) {
    this.generation += 1;
    if (this.cancelRunning) this.cancelRunning();
    this.cancelRunning = null;
    if (this.scriptUrl) {
      return this.inWorker(experiment, progress).catch((error) => {
        if (!(error instanceof WorkerFailed)) throw error;
        this.scriptUrl = null; // a worker that cannot start will not start next time either
        return this.onPage(experiment, progress);
      });
    }
    return this.onPage(experiment, progress);
  }

  /**
   * @param {Experiment} experiment
   * @param {(done: number) => void} progress
   * @returns {Promise<Outcome>}
   */
  inWorker(experiment, progress) {
    return new Promise((resolve, reject) => {
      let worker;
      try {
        worker = this.worker || new Worker(/** @type {string} */ (this.scriptUrl));
      } catch (error) {
        reject(new WorkerFailed(String(error)));
        return;
      }
      this.worker = worker;
      const id = this.generation;
      let answered = false;
      this.cancelRunning = () => {
        worker.terminate();
        this.worker = null;
        reject(new Cancelled());
      };
      worker.onmessage = (event) => {
        const data = event.data;
        if (data.id !== id) return;
        answered = true;
        if ("progress" in data) progress(data.progress);
        else if ("outcome" in data) {
          this.cancelRunning = null;
          this.where = "worker";
          resolve(data.outcome);
        } else {
          this.cancelRunning = null;
          reject(data.input ? new ReaderError(data.error) : new Error(data.error));
        }
      };
      worker.onerror = (event) => {
        event.preventDefault();
        worker.terminate();
        this.worker = null;
        this.cancelRunning = null;
        reject(answered ? new Error(event.message || "the worker failed") : new WorkerFailed(event.message));
      };
      worker.postMessage({ id, experiment });
    });
  }

  /**
   * @param {Experiment} experiment
   * @param {(done: number) => void} progress
   * @returns {Promise<Outcome>}
   */
  async onPage(experiment, progress) {
    const id = this.generation;
    let cancelled = false;
    this.cancelRunning = () => { cancelled = true; };
    await pause();
    const work = steps(experiment);
    for (;;) {
      if (cancelled || id !== this.generation) throw new Cancelled();
      let next;
      try {
        next = work.next();
      } catch (error) {
        if (error instanceof InputError) throw new ReaderError(error.message);
        throw error;
      }
      if (next.done) {
        this.where = "page";
        this.cancelRunning = null;
        return next.value;
      }
      progress(next.value);
      await pause();
    }
  }
}

/** The worker could not start (from disk, or blocked): run on the page instead. */
class WorkerFailed extends Error {}
