export * from './pages';
