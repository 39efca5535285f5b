/** The `cloudfront` module of the CloudFront Functions runtime 2.0 (KeyValueStore helper methods). */
declare module 'cloudfront' {
  interface KvsHandle {
    get(key: string, options?: { format: 'string' }): Promise<string>;
    exists(key: string): Promise<boolean>;
    meta(): Promise<{ creationDateTime: string; lastUpdatedDateTime: string; keyCount: number }>;
  }
  const cf: { kvs(id?: string): KvsHandle };
  export default cf;
}
