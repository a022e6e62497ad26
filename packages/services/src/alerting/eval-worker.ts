/** Worker-thread entry of the alert evaluator's planner (eval-pool.ts); bundled by apps/web into alert-worker.js. */
import { parentPort } from 'node:worker_threads';
import type { TEvalJob, TEvalAnswer } from './eval-pool';
import { planEvaluation, type TPlanInput } from './plan';

const port = parentPort;
if (!port) throw new Error('alert eval worker must run in a worker thread');

/** The rules of the last job that carried them. */
let rules: TPlanInput['rules'] = [];

port.on('message', (job: TEvalJob) => {
  let answer: TEvalAnswer;
  try {
    if (job.input.rules) rules = job.input.rules;
    answer = { id: job.id, ok: true, out: planEvaluation({ ...job.input, rules }) };
  } catch (err) {
    answer = { id: job.id, ok: false, error: (err as Error).message };
  }
  port.postMessage(answer);
});
