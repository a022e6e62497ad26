/**
 * The node flags the agent runs with in production (deploy/clusterscope-agent.service, checked by
 * test/node-flags.test.ts); `bench:agent` and the agent process tests (unit and e2e) use them too.
 *
 * - `--jitless`: V8's interpreter only. The compilers (Sparkplug, TurboFan) and their code pages cost RSS on
 *   every host; the agent's hot paths run in builtins (string search, JSON, zlib), so CPU stays within the budget.
 * - `--no-expose-wasm`: wasm needs the JIT; set explicitly so V8 does not print a warning into the JSON logs.
 *   So no `fetch` (undici parses HTTP with wasm) in the agent: it uses `node:http` (src/lib/http.ts). The agent
 *   process tests run with these flags and would catch it.
 * - `--max-semi-space-size=1`: a 1 MB young generation; the agent's garbage is small and short-lived, so a
 *   larger one only holds RSS.
 */
export const AGENT_NODE_FLAGS = ['--max-semi-space-size=1', '--jitless', '--no-expose-wasm'] as const;
