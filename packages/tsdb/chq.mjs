import { Session } from 'chdb';
const s = new Session('/tmp/chq-db');
s.query("CREATE TABLE t (org String, cluster String, host String, ts DateTime64(3,'UTC'), v Float64) ENGINE MergeTree PARTITION BY toDate(ts) ORDER BY (org, cluster, host, ts)");
s.query("INSERT INTO t SELECT 'o', concat('c', toString(number % 10)), concat('h', toString(number % 50)), fromUnixTimestamp64Milli(toInt64(1700000000000 + number * 200), 'UTC'), rand() FROM numbers(3000000)");
const sqlP = "SELECT host, max(ts) AS t, avg(v) FROM t WHERE org = {org:String} AND cluster IN {cs:Array(String)} AND ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({to:Int64}, 'UTC') GROUP BY host ORDER BY host";
const N = 60;
async function run(label, f) {
  for (let i = 0; i < 5; i++) await f(i);
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < N; i++) await f(i);
  const c = process.cpuUsage(c0);
  console.log(label, 'wall ms/q', ((performance.now() - t0) / N).toFixed(2), 'cpu ms/q', ((c.user + c.system) / 1000 / N).toFixed(2));
}
const params = (i) => ({ org: 'o', cs: ['c1', 'c2', 'c3'], from: 1700000000000 + 300000 * 1000 + i * 1000, to: 1700000000000 + 500000 * 1000 + i * 1000 });
const lit = (i) => { const p = params(i); return sqlP.replace('{org:String}', "'o'").replace('{cs:Array(String)}', "CAST(['c1','c2','c3'] AS Array(String))").replace('{from:Int64}', `CAST(${p.from} AS Int64)`).replace('{to:Int64}', `CAST(${p.to} AS Int64)`); };
for (let k = 0; k < 2; k++) {
  await run('bind   ', (i) => s.queryBindAsync ? s.queryBindAsync(sqlP, params(i), { format: 'JSONEachRow' }) : null);
  await run('literal', (i) => s.queryAsync(lit(i), { format: 'JSONEachRow' }));
  await run('literal+3SET', (i) => s.queryAsync('SET output_format_json_quote_64bit_integers = 0; SET os_threads_nice_value_query = 0; SET os_threads_nice_value_materialized_view = 0; ' + lit(i), { format: 'JSONEachRow' }));
  await run('literal+1SET', (i) => s.queryAsync('SET output_format_json_quote_64bit_integers = 0; ' + lit(i), { format: 'JSONEachRow' }));
}
