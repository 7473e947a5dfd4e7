// The lint rules of the project (`npm run lint`, run by `npm test`): what we met, caught before it lands.
// Formatting is Prettier's (`npm run format`); nothing here is about layout.
import importX from 'eslint-plugin-import-x';
import vue from 'eslint-plugin-vue';
import tseslint from 'typescript-eslint';
import vueParser from 'vue-eslint-parser';

// The server leans on none of its clients (issue 42, point 3): clients/ builds on the server's contract
// and may import from lambdas/, never the reverse. The SDK's published name counts as clients/ too.
const SANS_CLIENTS = {
  regex: '^(\\.\\./)+clients(/|$)|^@retouche/sdk(/|$)',
  message:
    "Nothing under lambdas/ imports from clients/: the clients build on the server, not the reverse. Move what both need under lambdas/, or the code that needs a client into clients/ (as clients/mcp/src/lambda.ts, the MCP route's handler).",
};
// An import() by a string, or by a template whose fixed start already names clients/.
const SANS_CLIENTS_DYNAMIQUE = [
  'ImportExpression[source.value=/^(\\.\\.\\/)+clients(\\/|$)|^@retouche\\/sdk(\\/|$)/]',
  'ImportExpression[source.quasis.0.value.raw=/^(\\.\\.\\/)+clients(\\/|$)|^@retouche\\/sdk(\\/|$)/]',
].map((selector) => ({ selector, message: 'Nothing under lambdas/ imports from clients/: the clients build on the server, not the reverse.' }));

export default tseslint.config(
  // site/dist/ is the site's build output (npm run site:build); clients/sdk/dist/ is the SDK's (clients/sdk: npm run build),
  // compiled from clients/sdk/src/.
  { ignores: ['node_modules/**', 'cdk.out/**', 'docs/exemples/*.jpg', '**/*.d.ts', '.retouche/**', 'site/dist/**', 'clients/sdk/dist/**'] },
  {
    files: ['**/*.ts', 'site/**/*.vue'],
    languageOptions: {
      parser: tseslint.parser,
      // site/vite.config.ts runs in Node, outside site/tsconfig.json: TypeScript's default project checks it. Here, not in
      // the site's block: the run has one project service, made with the options of the first file it parses.
      parserOptions: { projectService: { allowDefaultProject: ['site/vite.config.ts'] }, tsconfigRootDir: import.meta.dirname },
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
  // The web site (issue 42, point 4) under the same rules, type-aware through site/tsconfig.json (the browser's types),
  // which the project service finds beside its files. Its components are read by vue-eslint-parser, which hands
  // <script lang="ts"> to typescript-eslint's parser; import-x reads them the same way, so a cycle through a component
  // is seen.
  {
    files: ['site/**/*.ts', 'site/**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'] } },
    settings: {
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js', '.vue'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'], 'vue-eslint-parser': ['.vue'] },
    },
  },
  {
    files: ['site/**/*.vue'],
    plugins: { vue },
    processor: 'vue/vue',
    languageOptions: { parser: vueParser },
    rules: { 'vue/comment-directive': 'error' },
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
  // One direction between the server and its clients (SANS_CLIENTS above), for every module under lambdas/.
  // ESLint takes a rule's options from the last block that sets it, whole: the engines' walls below, which
  // set the same two rules for their folders, carry this one too.
  {
    files: ['lambdas/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [SANS_CLIENTS] }],
      'no-restricted-syntax': ['error', ...SANS_CLIENTS_DYNAMIQUE],
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
            SANS_CLIENTS,
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/(^|\\/)bedrock(\\/|$)/]', message: 'The local engine imports nothing from bedrock/.' },
        ...SANS_CLIENTS_DYNAMIQUE,
      ],
    },
  },
  {
    files: ['lambdas/moteurs/commun/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)(bedrock|local)(/|$)', message: 'moteurs/commun/ is what both engines share: it imports from neither engine.' },
            SANS_CLIENTS,
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression[source.value=/(^|\\/)(bedrock|local)(\\/|$)/]', message: 'moteurs/commun/ imports from neither engine.' },
        ...SANS_CLIENTS_DYNAMIQUE,
      ],
    },
  },
);
