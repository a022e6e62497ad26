import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TLiveEvent } from './deps';
import { createFanout, toFrame } from './live-fanout';

/** A fake bus: records subscriptions per org and lets the test emit notices. */
function fakeBus() {
  const subs = new Map<string, Set<(e: TLiveEvent) => void>>();
  let subscribeCalls = 0;
  return {
    subscribe: async (orgId: string, fn: (e: TLiveEvent) => void) => {
      subscribeCalls++;
      let s = subs.get(orgId);
      if (!s) subs.set(orgId, (s = new Set()));
      s.add(fn);
      return () => s.delete(fn);
    },
    emit: (e: TLiveEvent) => subs.get(e.orgId)?.forEach((fn) => fn(e)),
    listeners: (orgId: string) => subs.get(orgId)?.size ?? 0,
    get subscribeCalls() {
      return subscribeCalls;
    },
  };
}

const ev = (orgId: string, ts: number, clusterId = 'c1'): TLiveEvent => ({
  orgId,
  topic: 'samples',
  clusterId,
  kinds: ['node_status'],
  ts,
});
const text = (chunks: Uint8Array[]) => chunks.map((c) => new TextDecoder().decode(c)).join('');

/** A fan-out over a fake bus (heartbeat every 15 s unless `heartbeatMs`). */
function setup(opts: { windowMs: number; heartbeatMs?: number }) {
  const bus = fakeBus();
  const fan = createFanout({ subscribe: bus.subscribe, heartbeatMs: 15_000, ...opts });
  return { bus, fan };
}

/** A viewer of `orgId`: the writes it got and its unsubscribe. */
async function watch(fan: ReturnType<typeof createFanout>, orgId: string) {
  const got: Uint8Array[] = [];
  const off = await fan.add(orgId, (x) => got.push(x));
  return { got, off };
}

describe('createFanout', () => {
  afterEach(() => vi.useRealTimers());

  it('one bus subscription per org; every viewer gets every notice, batched into one write per window', async () => {
    vi.useFakeTimers();
    const { bus, fan } = setup({ windowMs: 20 });
    const a = await watch(fan, 'o1');
    const b = await watch(fan, 'o1');
    const other = await watch(fan, 'o2');
    expect(bus.subscribeCalls).toBe(2);
    expect(bus.listeners('o1')).toBe(1);

    bus.emit(ev('o1', 1));
    bus.emit(ev('o1', 2, 'c2'));
    expect(a.got).toHaveLength(0); // held for the window
    vi.advanceTimersByTime(20);
    expect(a.got).toHaveLength(1); // two notices, one write
    expect(b.got).toHaveLength(1);
    expect(a.got[0]).toBe(b.got[0]); // the same bytes: serialised once for every viewer
    expect(text(a.got)).toBe(toFrame(ev('o1', 1)) + toFrame(ev('o1', 2, 'c2')));
    expect(other.got).toHaveLength(0); // another org's viewers see nothing

    a.off();
    bus.emit(ev('o1', 3));
    vi.advanceTimersByTime(20);
    expect(a.got).toHaveLength(1);
    expect(b.got).toHaveLength(2);
    expect(text(b.got.slice(1))).toContain('"ts":3');
  });

  it('drops the bus subscription with the last viewer, and a new viewer resubscribes', async () => {
    const { bus, fan } = setup({ windowMs: 0 });
    const off1 = await fan.add('o1', () => undefined);
    const off2 = await fan.add('o1', () => undefined);
    off1();
    off1(); // idempotent
    expect(bus.listeners('o1')).toBe(1);
    off2();
    await Promise.resolve();
    expect(bus.listeners('o1')).toBe(0);
    expect(fan.viewers('o1')).toBe(0);
    const v = await watch(fan, 'o1');
    bus.emit(ev('o1', 9));
    expect(text(v.got)).toBe(toFrame(ev('o1', 9))); // windowMs 0: written at once
    v.off();
  });

  it('a failed subscription rejects add and the next viewer tries again', async () => {
    let fail = true;
    const bus = fakeBus();
    const fan = createFanout({
      subscribe: (org, fn) => (fail ? Promise.reject(new Error('pg down')) : bus.subscribe(org, fn)),
      windowMs: 0,
      heartbeatMs: 15_000,
    });
    await expect(fan.add('o1', () => undefined)).rejects.toThrow('pg down');
    fail = false;
    const v = await watch(fan, 'o1');
    bus.emit(ev('o1', 5));
    expect(v.got).toHaveLength(1);
    v.off();
  });

  it('sends one heartbeat to every viewer from one timer', async () => {
    vi.useFakeTimers();
    const { fan } = setup({ windowMs: 20, heartbeatMs: 1000 });
    const a = await watch(fan, 'o1');
    const b = await watch(fan, 'o2');
    vi.advanceTimersByTime(1000);
    expect(text(a.got)).toMatch(/^: ping \d+\n\n$/);
    expect(text(b.got)).toMatch(/^: ping \d+\n\n$/);
    a.off();
    b.off();
    vi.advanceTimersByTime(5000);
    expect(a.got).toHaveLength(1);
  });

  it('frames escape the topic and carry only the public fields', () => {
    const f = toFrame({ orgId: 'secret-org', topic: 'run\nx', runId: 'r1', ts: 7 });
    expect(f).toBe('event: run_x\ndata: {"clusterId":null,"runId":"r1","kinds":[],"ts":7}\n\n');
  });
});
