/**
 * The one error the playground's arithmetic throws on purpose.
 *
 * Every mistake in what the reader asked for (a token that is not a number,
 * an unknown format or method, a block size of 0) ends in an `InputError`
 * whose `message` is one line that names what is wrong and where, like the
 * one-line errors of `fpsum` on the command line.  Anything else thrown is a
 * bug.
 */
export class InputError extends Error {
  /** @param {string} message one line, no trailing full stop needed */
  constructor(message) {
    super(message);
    this.name = "InputError";
  }
}
