import base from '@clusterscope/config/eslint';

/** Layering: the agent depends only on the schema and bench packages (and talks HTTP to the public API). */
export default [
  ...base,
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@clusterscope/*', '!@clusterscope/schema', '!@clusterscope/bench'],
              message: 'the agent reaches only @clusterscope/schema and @clusterscope/bench.',
            },
          ],
        },
      ],
    },
  },
];
