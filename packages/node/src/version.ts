/** This package's version, for the User-Agent (test/packages/node-sdk.test.ts checks it is package.json's). */
export const VERSION = '0.1.0';
