declare global {
  namespace App {
    interface Locals {
      user: { id: string; email: string; name: string } | null;
    }
    interface Error {
      message: string;
      /** Set on unexpected (5xx) errors; the log line carries the same id. */
      id?: string;
    }
  }
}
export {};
