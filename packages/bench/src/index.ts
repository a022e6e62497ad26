export * from './errors';
export * from './metrics';
export { parseOutput, detectTool } from './parsers/parse-output';
export { parseSysbench, percentileMetric } from './parsers/sysbench';
export { parseCockroachWorkload } from './parsers/cockroach';
export { parsePgbench } from './parsers/pgbench';
export { parseFio } from './parsers/fio';
export { parseWrk } from './parsers/wrk';
export { parseHey } from './parsers/hey';
