/**
 * `npm run smoke -- --stack <name> --domain <verified link domain> --region <region>`: the
 * post-deploy smoke test. Reads the stack's outputs (official CloudFormation client) in the region
 * given (`--region`, else AWS_REGION / AWS_DEFAULT_REGION: never a default), then runs the steps
 * of scripts/smoke-steps.ts and prints a pass/fail line per step. Whatever fails, the throwaway
 * workspace and everything in it are erased (the cleanup is a step of its own). Exits 1 when a
 * step failed, the last line naming the first failing step: `FAIL: <step>: <reason>`.
 * A tenant-only distribution has no address of its own, so clicks go to a verified domain.
 *
 * `npm run smoke -- --local`: the same steps against the local stack (`npm start` when it runs,
 * otherwise one started here and stopped after). Part of `npm test`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { S3Client } from '@aws-sdk/client-s3';
import { Command } from 'commander';
import { createLocalLakeStore, createS3LakeStore } from '@shared/admin/lake-store';
import { localDir } from '@shared/local/paths';
import { startLocalStack, type LocalStack } from '@shared/local/local-stack';
import { runSmoke, type SmokeTarget, type StepResult } from './smoke-steps';

/** For tests of the smoke test itself: the name of a step to fail on purpose. */
const FAIL_STEP_ENV = 'SMOKE_FAIL_STEP';

const program = new Command('smoke')
  .description(
    'post-deploy smoke test: a throwaway workspace, links, a click through the front door, analytics, the origin refusing direct requests, cleanup',
  )
  .option('--stack <name>', 'the deployed stack (CloudFormation) to test')
  .option('--domain <domain>', 'a verified link domain of that stack (clicks go there)')
  .option('--region <region>', 'the stack region (else AWS_REGION or AWS_DEFAULT_REGION; never guessed)')
  .option('--local', 'run against the local stack instead')
  .option('--json', 'print one line of JSON')
  .parse(process.argv);
const options = program.opts<{ stack?: string; domain?: string; region?: string; local?: boolean; json?: boolean }>();

const print = (r: StepResult) => {
  if (!options.json) console.log(`${r.pass ? 'PASS' : 'FAIL'}  ${r.step}${r.detail ? `  (${r.detail})` : ''}`);
};

/** The region named by the operator: a flag or the environment, never the SDK's default chain. */
const explicitRegion = (): string => {
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('Pass --region or set AWS_REGION: the smoke test never guesses the region');
  return region;
};

/** The stack outputs the smoke test needs, from CloudFormation. */
const deployedTarget = async (): Promise<SmokeTarget> => {
  if (!options.stack || !options.domain) throw new Error('--stack and --domain are required (or --local)');
  const region = explicitRegion();
  const cfn = new CloudFormationClient({ region });
  const out = await cfn.send(new DescribeStacksCommand({ StackName: options.stack }));
  cfn.destroy();
  const outputs = new Map<string, string>();
  for (const o of out.Stacks?.[0]?.Outputs ?? [])
    if (o.OutputKey && o.OutputValue) outputs.set(o.OutputKey, o.OutputValue);
  const output = (name: string) => {
    const value = outputs.get(name);
    if (!value) throw new Error(`stack ${options.stack} in ${region} has no output ${name}`);
    return value;
  };
  const baseUrl = output('BaseUrl');
  process.env.TABLE_NAME = output('TableName');
  // The table and lake clients the steps use (the shared DynamoDB client reads AWS_REGION).
  process.env.AWS_REGION = region;
  return {
    baseUrl: baseUrl.replace(/\/$/, ''),
    clickOrigin: `https://${options.domain}`,
    clickDomain: options.domain,
    directOrigins: output('EdgeFunctionUrls').split(',').filter(Boolean),
    lake: createS3LakeStore(new S3Client({ region }), output('EventLakeBucketName')),
  };
};

let started: LocalStack | undefined;
const localTarget = async (): Promise<SmokeTarget> => {
  const stackFile = path.join(localDir, 'stack.json');
  if (!process.env.TABLE_NAME && existsSync(stackFile)) {
    const state = JSON.parse(readFileSync(stackFile, 'utf8')) as Partial<Record<string, string>>;
    const { tableName, dynamoEndpoint, baseUrl, edgeUrl, originUrl, lakeDir } = state;
    if (!tableName || !baseUrl || !edgeUrl || !originUrl || !lakeDir)
      throw new Error(`${stackFile} is not the local stack's state: restart the stack with \`npm start\``);
    process.env.TABLE_NAME = tableName;
    process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    return {
      baseUrl,
      clickOrigin: edgeUrl,
      clickHeaders: { 'cloudfront-viewer-country': 'NL' },
      directOrigins: [originUrl],
      lake: createLocalLakeStore(lakeDir),
    };
  }
  started = await startLocalStack({
    port: 0,
    edgePort: 0,
    dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
    tableName: process.env.TABLE_NAME,
    lakeDir: process.env.LOCAL_LAKE_DIR,
  });
  return {
    baseUrl: started.baseUrl,
    clickOrigin: started.edgeUrl,
    clickHeaders: { 'cloudfront-viewer-country': 'NL' },
    directOrigins: [started.originUrl],
    lake: createLocalLakeStore(started.lakeDir),
  };
};

let results: StepResult[] = [];
try {
  const target = options.local ? await localTarget() : await deployedTarget();
  results = await runSmoke(target, { log: print, failStep: process.env[FAIL_STEP_ENV] });
} catch (error) {
  const setUp = { step: 'set up', pass: false, detail: error instanceof Error ? error.message : String(error) };
  results.push(setUp);
  print(setUp);
} finally {
  await started?.stop();
}
const failed = results.filter((r) => !r.pass);
const first = failed[0];
if (options.json)
  console.log(
    JSON.stringify({
      pass: !first,
      ...(first ? { failedStep: first.step, reason: first.detail } : {}),
      steps: results,
    }),
  );
else
  console.log(
    first
      ? `FAIL: ${first.step}: ${first.detail}${failed.length > 1 ? ` (${failed.length} of ${results.length} steps failed)` : ''}`
      : `smoke: all ${results.length} steps passed`,
  );
process.exit(first ? 1 : 0);
