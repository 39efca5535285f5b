import { beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '@shared/config/config';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { runHotKeysLoad } from '@test/support/hot-keys-load';

/**
 * No hot keys: the outbound event log and the rate limiter under a scaled-down viral load
 * (test/support/hot-keys-load.ts: limits and load at 1/100, a few modelled seconds; the bench runs
 * 10 modelled minutes). The proxy's clock is moved by the load, so nothing depends on time.
 */
let proxy: DynamoFaultProxy;
let clock = 0;
beforeAll(async () => {
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!, { now: () => clock });
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  resetConfig();
  return () => proxy.stop();
});

const load = (workspaceId: string, seconds: number, unsharded = false) =>
  runHotKeysLoad({ proxy, setClock: (ms) => (clock = ms), seconds, scale: 0.01, workspaceId }, unsharded);

describe('no hot keys under a scaled-down viral load', () => {
  it('sharded: no throttled write on the event log or the limiter, no event lost, the limit exact', async () => {
    const result = await load('ws_hotkeys', 5);
    // The load is many times what one key takes (10 write units/s): a log item is 2 write units,
    // 100 of them a second; 100 limited requests a second.
    expect(result.perKeyWriteUnits).toBe(10);
    expect(result.eventWriteUnits).toBe(2);
    expect(result.eventsPerSecond * result.eventWriteUnits).toBe(200);
    expect(result.requestsPerSecond).toBe(100);
    expect(result.eventLogThrottled).toBe(0);
    expect(result.limiterThrottled).toBe(0);
    expect(result.writeThrottles).toBe(0);
    expect(result.unprocessed).toBe(0);
    expect(result.failedCalls).toBe(0);
    expect(result.eventsSent).toBe(500);
    expect(result.eventsRead).toBe(500);
    expect(result.eventsLost).toBe(0);
    expect(result.eventsOutOfOrder).toBe(0);
    // The limited workspace (3,000/min scaled: 30, on 6 shards) got exactly its limit in the window.
    expect(result.limitedShards).toBe(6);
    expect(result.admitted).toBe(30);
  });

  it('the control: the same load on one key per writer is throttled', async () => {
    const result = await load('ws_hotkeys_control', 1, true);
    expect(result.eventLogThrottled).toBeGreaterThan(0);
    expect(result.limiterThrottled).toBeGreaterThan(0);
  });
});
