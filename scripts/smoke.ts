/**
 * `npm run smoke -- --stack <name> --domain <verified link domain> [--region R]`: the post-deploy
 * smoke test. Reads the stack's outputs (official CloudFormation client), then runs the steps of
 * scripts/smoke-steps.ts and prints a pass/fail line per step; exits 1 when any fails.
 * A tenant-only distribution has no address of its own, so clicks go to a verified domain.
 *
 * `npm run smoke -- --local`: the same steps against the local stack (`npm start` when it runs,
 * otherwise one started here and stopped after). Part of `npm test`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { Command } from 'commander';
import { localDir } from '@shared/local/paths';
import { startLocalStack, type LocalStack } from '@shared/local/local-stack';
import { runSmoke, type SmokeTarget, type StepResult } from './smoke-steps';

const program = new Command('smoke')
  .description(
    'post-deploy smoke test: a throwaway workspace, links, a click through the front door, analytics, cleanup',
  )
  .option('--stack <name>', 'the deployed stack (CloudFormation) to test')
  .option('--domain <domain>', 'a verified link domain of that stack (clicks go there)')
  .option('--region <region>', 'the stack region (default: AWS_REGION)')
  .option('--local', 'run against the local stack instead')
  .option('--json', 'print one line of JSON')
  .parse(process.argv);
const options = program.opts<{ stack?: string; domain?: string; region?: string; local?: boolean; json?: boolean }>();

const print = (r: StepResult) => {
  if (!options.json) console.log(`${r.pass ? 'PASS' : 'FAIL'}  ${r.step}${r.detail ? `  (${r.detail})` : ''}`);
};

/** The stack outputs the smoke test needs, from CloudFormation. */
const deployedTarget = async (): Promise<SmokeTarget> => {
  if (!options.stack || !options.domain) throw new Error('--stack and --domain are required (or --local)');
  const cfn = new CloudFormationClient(options.region ? { region: options.region } : {});
  const out = await cfn.send(new DescribeStacksCommand({ StackName: options.stack }));
  const outputs = new Map<string, string>();
  for (const o of out.Stacks?.[0]?.Outputs ?? [])
    if (o.OutputKey && o.OutputValue) outputs.set(o.OutputKey, o.OutputValue);
  const output = (name: string) => {
    const value = outputs.get(name);
    if (!value) throw new Error(`stack ${options.stack} has no output ${name}`);
    return value;
  };
  const baseUrl = output('BaseUrl');
  process.env.TABLE_NAME = output('TableName');
  if (options.region) process.env.AWS_REGION = options.region;
  return {
    baseUrl: baseUrl.replace(/\/$/, ''),
    clickOrigin: `https://${options.domain}`,
    clickDomain: options.domain,
  };
};

let started: LocalStack | undefined;
const localTarget = async (): Promise<SmokeTarget> => {
  const stackFile = path.join(localDir, 'stack.json');
  if (!process.env.TABLE_NAME && existsSync(stackFile)) {
    const state = JSON.parse(readFileSync(stackFile, 'utf8')) as Partial<Record<string, string>>;
    const { tableName, dynamoEndpoint, baseUrl, edgeUrl } = state;
    if (!tableName || !baseUrl || !edgeUrl)
      throw new Error(`${stackFile} is not the local stack's state: restart the stack with \`npm start\``);
    process.env.TABLE_NAME = tableName;
    process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
    return {
      baseUrl,
      clickOrigin: edgeUrl,
      clickHeaders: { 'cloudfront-viewer-country': 'NL' },
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
  };
};

let results: StepResult[] = [];
try {
  const target = options.local ? await localTarget() : await deployedTarget();
  results = await runSmoke(target, print);
} catch (error) {
  const setUp = { step: 'set up', pass: false, detail: error instanceof Error ? error.message : String(error) };
  results.push(setUp);
  print(setUp);
} finally {
  await started?.stop();
}
const failed = results.filter((r) => !r.pass).length;
if (options.json) console.log(JSON.stringify({ pass: failed === 0, steps: results }));
else
  console.log(
    failed === 0 ? `smoke: all ${results.length} steps passed` : `smoke: ${failed} of ${results.length} steps FAILED`,
  );
process.exit(failed === 0 ? 0 : 1);
