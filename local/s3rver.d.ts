// s3rver ships no types; this is the part of its API the local stack uses.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  interface OptionsS3rver {
    address?: string;
    port?: number;
    directory: string;
    silent?: boolean;
    resetOnClose?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }
  export default class S3rver {
    constructor(options: OptionsS3rver);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
