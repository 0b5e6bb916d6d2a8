/**
 * The worker's side: the bundle, started as a Web Worker, runs experiments sent to it.
 * Message in: `{id, experiment}`. Out: `{id, progress}` as it goes, then `{id, outcome}` (its arrays
 * transferred, not copied) or `{id, error, input}` (input: the reader's input was at fault).
 */

import { InputError } from "../core/index.js";
import { runAll } from "./experiment.js";

/**
 * @typedef {{postMessage: (message: unknown, transfer?: Transferable[]) => void,
 *   onmessage: ((event: MessageEvent) => void) | null}} WorkerScope
 */

/**
 * Answer every experiment `scope` (the worker's global scope) is sent.
 * @param {WorkerScope} scope
 */
export function serve(scope) {
  scope.onmessage = (event) => {
    const { id, experiment } = event.data;
    try {
      const outcome = runAll(experiment, (progress) => scope.postMessage({ id, progress }));
      const buffers = [outcome.values.buffer, outcome.steps.buffer, outcome.exactSampled.buffer,
        ...outcome.results.flatMap((r) => [r.sampled.buffer, r.errors.buffer])];
      scope.postMessage({ id, outcome }, buffers);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      scope.postMessage({ id, error: message, input: error instanceof InputError });
    }
  };
}
