/**
 * Imported first by the admin CLI, before anything that loads Powertools or the SDK: the CLI is an
 * operator's process, never a Lambda invocation. A parent that runs the local server in-process
 * (tests, scripts) sets AWS_LAMBDA_MAX_CONCURRENCY for its own Lambda stand-in; inherited by the
 * CLI it makes Powertools ask for the runtime's invoke store, which a CLI does not have.
 */
delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
