// The ESM build of @asteasolutions/zod-to-openapi (see src/openapi/document.ts) has the package's types.
declare module '@asteasolutions/zod-to-openapi/dist/index.mjs' {
  export * from '@asteasolutions/zod-to-openapi';
}
