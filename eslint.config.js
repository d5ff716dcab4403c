// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Import boundaries (../shared/DESIGN.md §4): everything points at `core`.
 * - `src/core` imports nothing internal outside itself.
 * - `src/runner` and `src/engines` never import the server, the store or the git providers.
 */
const boundary = (group, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group, message }] }],
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'web/dist/**', 'vendor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: boundary(
      ['../*', '../**'],
      'src/core imports nothing internal: it holds the types and interfaces everything else depends on.',
    ),
  },
  {
    files: ['src/runner/**/*.ts', 'src/engines/**/*.ts'],
    rules: boundary(
      ['**/server', '**/server/**', '**/store', '**/store/**', '**/scm', '**/scm/**'],
      'runners and engines never import the server, the store or the git providers (DESIGN.md §4).',
    ),
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
