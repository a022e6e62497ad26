import { json } from '@sveltejs/kit';
import { getOpenApiDocument } from '@clusterscope/api';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = () => json(getOpenApiDocument('/api/v1'));
