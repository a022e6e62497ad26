import { Worker } from 'node:worker_threads';
import { planEvaluation, type TPlanInput, type TPlanOutput } from './plan';

export interface TEvalJob {
  id: number;
  /** `rules: null` = the rules of the last job (same rulesVersion). */
  input: Omit<TPlanInput, 'rules'> & { rules: TPlanInput['rules'] | null };
}
export type TEvalAnswer =
  | { id: number; ok: true; out: TPlanOutput }
  | { id: number; ok: false; error: string };

/** Where a cycle's rule evaluation runs: a worker thread, or inline (tests, vite dev, no bundle). */
export interface TEvalPlanner {
  readonly threaded: boolean;
  plan(input: TPlanInput): Promise<TPlanOutput>;
  close(): Promise<void>;
}

export const inlinePlanner = (): TEvalPlanner => ({
  threaded: false,
  plan: async (input) => planEvaluation(input),
  close: async () => undefined,
});

/**
 * One worker thread running planEvaluation (eval-worker.ts), so the web process's event loop only
 * fetches readings and stores transitions while rules are evaluated. Inputs and outputs cross by
 * structured clone (Dates included). A worker that dies fails its job (that cycle is retried on the
 * next tick, state in PostgreSQL is untouched) and is replaced on the next call.
 */
export function createEvalPlanner(opts: {
  entry?: string | URL;
  execArgv?: string[];
  log?: (msg: string) => void;
}): TEvalPlanner {
  if (!opts.entry) return inlinePlanner();
  const entry = opts.entry;
  const log = opts.log ?? ((m: string) => console.error(m));
  let worker: Worker | null = null;
  let nextId = 1;
  let closed = false;
  const waiting = new Map<number, { resolve: (o: TPlanOutput) => void; reject: (e: Error) => void }>();

  function failAll(err: Error) {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  }

  /** rulesVersion the current worker holds (rules are cloned to it only when they changed). */
  let held: string | undefined;

  function spawn(): Worker {
    held = undefined;
    const w = new Worker(entry, { execArgv: opts.execArgv });
    w.unref();
    w.on('message', (a: TEvalAnswer) => {
      const p = waiting.get(a.id);
      if (!p) return;
      waiting.delete(a.id);
      if (a.ok) p.resolve(a.out);
      else p.reject(new Error(a.error));
    });
    w.on('error', (err) => {
      log(JSON.stringify({ level: 'warn', msg: 'alert eval worker failed', err: err.message }));
    });
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      failAll(new Error(`alert eval worker exited (${code})`));
    });
    return w;
  }

  return {
    threaded: true,
    plan(input) {
      if (closed) return Promise.reject(new Error('alert eval planner closed'));
      worker ??= spawn();
      const id = nextId++;
      const w = worker;
      const same = input.rulesVersion !== undefined && input.rulesVersion === held;
      held = input.rulesVersion;
      return new Promise<TPlanOutput>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        w.postMessage({ id, input: same ? { ...input, rules: null } : input } satisfies TEvalJob);
      });
    },
    async close() {
      closed = true;
      const w = worker;
      worker = null;
      failAll(new Error('alert eval planner closed'));
      if (w) await w.terminate();
    },
  };
}
