// @ts-check
import js from '@eslint/js';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'bench-results/', 'test/artifacts/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['schema/*.graphql'],
    languageOptions: {
      parser: graphqlPlugin.parser,
      parserOptions: { graphQLConfig: { schema: 'schema/schema.graphql' } },
    },
    plugins: { '@graphql-eslint': graphqlPlugin },
    rules: {
      ...graphqlPlugin.configs['flat/schema-recommended'].rules,
      ...graphqlPlugin.configs['flat/schema-relay'].rules,
      '@graphql-eslint/relay-arguments': ['error', { includeBoth: false }],
    },
  },
);
