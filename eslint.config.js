// @ts-check
import js from '@eslint/js';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'bench-results/', 'test/artifacts/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The layout by feature holds only if hooks stay at the edge: a feature's logic lives beside its
    // `use-*.ts` hook, and only the composition root installs hooks. A module that imported a hook (or
    // anything in src/plugins/) would tie its logic to yoga's pipeline and to the plugin order.
    files: ['src/**/*.ts'],
    ignores: ['src/app.ts', 'src/plugins/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.{1,2}/(.*/)?use-[^/]*$',
              message:
                'A hook (use-*.ts) is installed by the composition root only (src/app.ts, src/plugins/index.ts). Import the logic it adapts, from the sibling module without the use- prefix; a helper several features share goes to src/utils/.',
            },
            {
              regex: '^\\.{1,2}/(.*/)?plugins(/.*)?$',
              message:
                'src/plugins/ holds the ordered list of hooks and the stateless hooks: only the composition root (src/app.ts, src/plugins/index.ts) imports from it. A helper several features share goes to src/utils/.',
            },
          ],
        },
      ],
    },
  },
  {
    // The standalone SDL; schema/subgraph.graphql carries Federation's directives, which these rules do not know.
    files: ['schema/schema.graphql'],
    languageOptions: {
      parser: graphqlPlugin.parser,
      parserOptions: { graphQLConfig: { schema: 'schema/schema.graphql' } },
    },
    plugins: { '@graphql-eslint': graphqlPlugin },
    rules: {
      ...graphqlPlugin.configs['flat/schema-recommended'].rules,
      ...graphqlPlugin.configs['flat/schema-relay'].rules,
      '@graphql-eslint/relay-arguments': ['error', { includeBoth: false }],
      // Records embedded in a parent stay plain lists (a VM's NICs, a bond's slaves: the API's
      // promise, docs/reference/api-promise.md); only collections the upstream pages are connections.
      '@graphql-eslint/relay-edge-types': ['error', { listTypeCanWrapOnlyEdgeType: false, withEdgeSuffix: true, shouldImplementNode: true }],
      // Records the spec gives no identity of their own (capacities, refs, results) and Relay's
      // own plumbing carry no id.
      '@graphql-eslint/strict-id-in-types': [
        'error',
        {
          acceptedIdNames: ['id'],
          acceptedIdTypes: ['ID'],
          exceptions: {
            suffixes: ['Connection', 'Edge', 'Payload', 'Ref', 'Result', 'Facts', 'Capacity', 'Info', 'Receiver', 'Error'],
          },
        },
      ],
      // Field names are the spec's (Host.hostname, Volume.volumeQos): renaming them would break the contract.
      '@graphql-eslint/no-typename-prefix': 'off',
    },
  },
);
