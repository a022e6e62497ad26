declare const __AGENT_VERSION__: string | undefined;

/** Injected by build.mjs from package.json; "0.0.0-dev" when running from source. */
export const AGENT_VERSION: string = typeof __AGENT_VERSION__ === 'string' ? __AGENT_VERSION__ : '0.0.0-dev';
