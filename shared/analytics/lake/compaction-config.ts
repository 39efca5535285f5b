/** Environment of the deployed compaction function (lib/lake-compaction.ts sets it from these names). */
export const lakeCompactionEnvNames = {
  lakeBucket: 'LAKE_BUCKET',
} as const;

export interface LakeCompactionConfig {
  region: string;
  lakeBucket: string;
  workgroup: string;
  database: string;
}

/** Reads and checks the compaction function's environment; throws naming every missing variable (at init). */
export const parseLakeCompactionConfig = (env: Record<string, string | undefined>): LakeCompactionConfig => {
  const lakeBucket = env[lakeCompactionEnvNames.lakeBucket];
  const workgroup = env.ATHENA_WORKGROUP;
  const database = env.ATHENA_DATABASE;
  if (!lakeBucket || !workgroup || !database) {
    const missing = [lakeCompactionEnvNames.lakeBucket, 'ATHENA_WORKGROUP', 'ATHENA_DATABASE'].filter(
      (name) => !env[name],
    );
    throw new Error(`Invalid configuration: ${missing.map((name) => `${name}: is required`).join('; ')}`);
  }
  return { region: env.AWS_REGION || 'us-east-1', lakeBucket, workgroup, database };
};
