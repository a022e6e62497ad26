import { errorMessage } from './trpc';

/**
 * A form's or page's call to the server: `busy` while it runs (`key` names which one, e.g. a row id), and
 * `err`, the message of the last failure ('' after a success).
 */
export class Action {
  busy = $state(false);
  key = $state<string | null>(null);
  err = $state('');

  /** Runs `fn`; a failure is caught into `err`. */
  async run(fn: () => Promise<unknown>, key: string | null = null): Promise<void> {
    this.err = '';
    this.busy = true;
    this.key = key;
    try {
      await fn();
    } catch (e) {
      this.err = errorMessage(e);
    } finally {
      this.busy = false;
      this.key = null;
    }
  }
}
