// Types of scripts/build-stubs.mjs, for test/e2e/build-stubs.test.ts.
export declare const LAZY_PROXY: string
export declare const LAZY: Readonly<Record<string, string>> & {readonly debug: string}
export declare const LAZY_BUILTINS: readonly string[]
export declare const WSL_STUB: string
export declare const DOCKERODE_RARELY_USED: Readonly<
  Record<string, {readonly importer: RegExp; readonly runtime: string}>
>
