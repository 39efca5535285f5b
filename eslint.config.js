// ESLint flat config: typescript-eslint's strictTypeChecked with type information, import cycles
// refused, Prettier owning layout. A rule is relaxed only here, with the reason beside it, or on
// one line with an eslint-disable comment that gives the reason on the same line.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      'dist/',
      '.local/',
      'test/artifacts/',
      'bench/results/',
      // The SDK's types are openapi-typescript's output (`npm run sdk:generate`), not edited by hand.
      'sdk/src/generated/',
      'sdk/dist/',
      'web/dist/',
      'console/dist/',
      'console/dist.tmp-*/',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      // Numbers and booleans print unambiguously in a template; objects, nullish values and
      // unions with them stay refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `_`-prefixed names are the convention for a parameter a signature requires but the body
      // does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read response bodies as parsed JSON (`any`) and assert on them with expect(): a
      // wrong shape fails the assertion, which is the check. Typing every body would restate the
      // schemas the tests exist to verify.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // In a test a wrong assumption throws and fails the test, which is what an assertion would do.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  prettier,
);
