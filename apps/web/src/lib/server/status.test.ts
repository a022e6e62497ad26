import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { AppError } from '@clusterscope/services/core';
import { statusOf } from './status';

describe('statusOf', () => {
  it.each([
    ['BAD_REQUEST', 400],
    ['UNAUTHORIZED', 401],
    ['FORBIDDEN', 403],
    ['NOT_FOUND', 404],
    ['CONFLICT', 409],
    ['PAYLOAD_TOO_LARGE', 413],
    ['UNPROCESSABLE_CONTENT', 422],
    ['TOO_MANY_REQUESTS', 429],
    ['SERVICE_UNAVAILABLE', 503],
  ] as const)('%s → %i, from a domain error and a tRPC error alike', (code, status) => {
    expect(statusOf(new AppError(code, 'x'))).toBe(status);
    expect(statusOf(new TRPCError({ code, message: 'x' }))).toBe(status);
  });

  it('anything unexpected has no status (handleError answers it with an id)', () => {
    expect(statusOf(new TRPCError({ code: 'INTERNAL_SERVER_ERROR' }))).toBeNull();
    expect(statusOf(new Error('boom'))).toBeNull();
    expect(statusOf('text')).toBeNull();
  });
});
