/**
 * `npm run -s openapi`: prints the OpenAPI 3.1 document (the one `GET /v1/openapi.json` serves)
 * to stdout; `npm run -s openapi -- --out dist/openapi.json` writes it to a file instead.
 * (`-s` keeps npm's own banner lines out of stdout.) A refused command line or an unwritable
 * file is one sentence on stderr and exit code 1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';

// A reader that stops early (`| head`) is not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const writeProblem = (error: NodeJS.ErrnoException): string => {
  switch (error.code) {
    case 'EEXIST':
    case 'ENOTDIR':
      return `${error.path ?? 'part of the path'} is a file, not a folder`;
    case 'EISDIR':
      return 'it is a folder; give a file name';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return error.code ?? error.message;
  }
};

const program = new Command('openapi')
  .description('print the OpenAPI 3.1 document of the service API (JSON) to stdout')
  .option('--out <file>', 'write the document to this file instead (folders are created)')
  .configureOutput({ outputError: () => undefined })
  .exitOverride()
  .action((options: { out?: string }) => {
    const document = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
    if (options.out === undefined) {
      process.stdout.write(document);
      return;
    }
    const target = path.resolve(options.out);
    try {
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, document);
    } catch (error) {
      throw new Error(`Cannot write ${options.out}: ${writeProblem(error as NodeJS.ErrnoException)}`, { cause: error });
    }
    console.log(`Wrote ${path.relative(process.cwd(), target) || target}.`);
  });

const asSentence = (message: string) => {
  const text = message.replace(/^error:\s*/, '').trim();
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.?!]$/.test(capital) ? capital : `${capital}.`;
};

try {
  program.parse(process.argv);
} catch (error) {
  if (error instanceof CommanderError && error.exitCode === 0) process.exit(0);
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof CommanderError ? ' See `npm run -s openapi -- --help`.' : '';
  console.error(`openapi: ${asSentence(message)}${hint}`);
  process.exit(1);
}
