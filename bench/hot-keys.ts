import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { resetConfig } from '@shared/config/config';
import { createTableIfMissing } from '@shared/local/create-table';
import { projectRoot } from '@shared/local/paths';
import { startDynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { runHotKeysLoad, type HotKeysLoadResult } from '@test/support/hot-keys-load';

/**
 * The scaled-down production load on the outbound event log and the rate limiter
 * (test/support/hot-keys-load.ts): DynamoDB's per-key limits and the viral plan's load both at
 * 1/100, for `seconds` modelled seconds (the full bench: 600, ten minutes; `npm test` runs 5).
 * It runs in a child process: the repositories use the process's one DynamoDB client, which must
 * point at the limit-enforcing proxy, not at the local stack the other sections use.
 */
export const HOT_KEYS_SCALE = 0.01;

export interface HotKeysBenchResult extends HotKeysLoadResult {
  /** The same load on one key per writer, for a few seconds: what the shards avoid. */
  control: Pick<HotKeysLoadResult, 'seconds' | 'eventLogThrottled' | 'limiterThrottled'>;
}

export const measureHotKeys = async (dynamoEndpoint: string, seconds: number): Promise<HotKeysBenchResult> => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(projectRoot, 'bench', 'hot-keys.ts'), '--child', String(seconds)],
    {
      cwd: projectRoot,
      env: { ...process.env, DYNAMODB_ENDPOINT: dynamoEndpoint, TABLE_NAME: 'bench-hot-keys', LOG_LEVEL: 'silent' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as HotKeysBenchResult;
};

/** The child: its own table, a proxy with the scaled limits in front of DynamoDB Local, the load, then the control. */
const child = async (seconds: number) => {
  const target = process.env.DYNAMODB_ENDPOINT ?? '';
  const tableName = process.env.TABLE_NAME ?? 'bench-hot-keys';
  const admin = new DynamoDBClient({
    endpoint: target,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createTableIfMissing(admin, tableName);
  admin.destroy();
  let clock = 0;
  const proxy = await startDynamoFaultProxy(target, { now: () => clock });
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  resetConfig();
  try {
    const setClock = (ms: number) => (clock = ms);
    const run = Date.now().toString(36);
    const result = await runHotKeysLoad({
      proxy,
      setClock,
      seconds,
      scale: HOT_KEYS_SCALE,
      workspaceId: `ws_bench_${run}`,
    });
    clock += 3_600_000;
    const control = await runHotKeysLoad(
      {
        proxy,
        setClock: (ms) => setClock(3_600_000 + ms),
        seconds: 1,
        scale: HOT_KEYS_SCALE,
        workspaceId: `ws_ctl_${run}`,
      },
      true,
    );
    const out: HotKeysBenchResult = {
      ...result,
      control: {
        seconds: control.seconds,
        eventLogThrottled: control.eventLogThrottled,
        limiterThrottled: control.limiterThrottled,
      },
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await proxy.stop();
  }
};

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3] ?? '5'));
  process.exit(0);
}
