import { describe, expect, it } from 'vitest';
import { createSignInLimiter } from './sign-in-limit';

describe('sign-in limiter', () => {
  it('blocks an account+address pair after its failures, not other clients or accounts', async () => {
    const l = createSignInLimiter({ pairMax: 3 });
    for (let i = 0; i < 3; i++) {
      expect(await l.check('1.1.1.1', 'a@x.io')).toBeNull();
      await l.fail('1.1.1.1', 'a@x.io');
    }
    const wait = await l.check('1.1.1.1', 'A@x.io ');
    expect(wait).toBeGreaterThan(800);
    expect(await l.check('2.2.2.2', 'a@x.io')).toBeNull();
    expect(await l.check('1.1.1.1', 'b@x.io')).toBeNull();
  });

  it('caps one address across many accounts', async () => {
    const l = createSignInLimiter({ ipMax: 4 });
    for (let i = 0; i < 4; i++) await l.fail('1.1.1.1', `u${i}@x.io`);
    expect(await l.check('1.1.1.1', 'fresh@x.io')).toBeGreaterThan(0);
    expect(await l.check('2.2.2.2', 'fresh@x.io')).toBeNull();
  });

  it('caps one account across many addresses', async () => {
    const l = createSignInLimiter({ accountMax: 4 });
    for (let i = 0; i < 4; i++) await l.fail(`10.0.0.${i}`, 'a@x.io');
    expect(await l.check('10.9.9.9', 'a@x.io')).toBeGreaterThan(0);
  });

  it('a success clears the pair counter', async () => {
    const l = createSignInLimiter({ pairMax: 2 });
    await l.fail('1.1.1.1', 'a@x.io');
    await l.succeed('1.1.1.1', 'a@x.io');
    await l.fail('1.1.1.1', 'a@x.io');
    expect(await l.check('1.1.1.1', 'a@x.io')).toBeNull();
  });
});
