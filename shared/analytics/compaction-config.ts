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
  const missing = [lakeCompactionEnvNames.lakeBucket, 'ATHENA_WORKGROUP', 'ATHENA_DATABASE'].filter(
    (name) => !env[name],
  );
  if (missing.length > 0)
    throw new Error(`Invalid configuration: ${missing.map((name) => `${name}: is required`).join('; ')}`);
  return {
    region: env.AWS_REGION || 'us-east-1',
    lakeBucket: env[lakeCompactionEnvNames.lakeBucket]!,
    workgroup: env.ATHENA_WORKGROUP!,
    database: env.ATHENA_DATABASE!,
  };
};
