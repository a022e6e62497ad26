export { default } from '@clusterscope/config/eslint';
