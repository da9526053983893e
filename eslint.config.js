// ESLint: eslint's recommended rules and typescript-eslint's type-checked ones, with the
// types from tsconfig.json (projectService). Formatting is Prettier's job, not ESLint's.
// @ts-check
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'coverage/', '.cluster*/', 'crds/', 'charts/'] },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `const { dropped: _d, ...rest } = o` is how this code leaves a field out; `_` marks
      // what is unused on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Timers are declared together up front and set later, after the closures that clear
      // them; such a `let` cannot become a `const` where it is declared.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Fakes and test doubles implement Promise-returning ports with `async` methods that
    // have nothing to await.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    // The few plain-JS files (configs, bin/) are outside tsconfig.json: no type information.
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
);
