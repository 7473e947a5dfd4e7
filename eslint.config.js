// The lint rules of the project (`npm run lint`, run by `npm test`): what we met, caught before it lands.
// Formatting is Prettier's (`npm run format`); nothing here is about layout.
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // site/ is type-checked by vue-tsc (npm test), with the browser's types and its own tsconfig.
  // clients/sdk/dist/ is the SDK's build output (clients/sdk: npm run build), compiled from clients/sdk/src/.
  { ignores: ['node_modules/**', 'cdk.out/**', 'docs/exemples/*.jpg', '**/*.d.ts', '.retouche/**', 'site/**', 'clients/sdk/dist/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importX },
    settings: { 'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js'] })] },
    rules: {
      // A promise nobody awaits is a write that may not happen, or an error nobody sees.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Two modules that need each other are one concept in two files, or a layer upside down.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
    },
  },
  // One owner per record (issue 22, point 1): DynamoDB commands are built in lambdas/core/depots/ only,
  // one module per record kind, so a key, a counter or a condition is written in one place. Other
  // modules may name the client's type; client-dynamodb.ts builds the client itself.
  {
    files: ['lambdas/**/*.ts'],
    ignores: ['lambdas/core/depots/**', 'lambdas/core/infra/client-dynamodb.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb'].map((name) => ({
            name,
            allowTypeImports: true,
            message: 'DynamoDB is read and written by the record modules in lambdas/core/depots/: add a verb there.',
          })),
        },
      ],
    },
  },
  // The engines' walls (issue 22, point 3). The local preview engine took the production engine's
  // internals, so neither could change without the other; what both run is in moteurs/commun/, and
  // depends on neither engine. Matched on the written path: imports, type-only imports, re-exports,
  // and (no-restricted-syntax, which no-restricted-imports does not see) a dynamic import().
  {
    files: ['lambdas/moteurs/local/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)bedrock(/|$)', message: 'The local engine imports nothing from bedrock/: move what both engines need to moteurs/commun/.' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/(^|\\/)bedrock(\\/|$)/]', message: 'The local engine imports nothing from bedrock/.' },
      ],
    },
  },
  {
    files: ['lambdas/moteurs/commun/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)(bedrock|local)(/|$)', message: 'moteurs/commun/ is what both engines share: it imports from neither engine.' }] },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/(^|\\/)(bedrock|local)(\\/|$)/]', message: 'moteurs/commun/ imports from neither engine.' },
      ],
    },
  },
);
