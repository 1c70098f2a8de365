import { describe, expect, it } from 'vitest';
import { newRealm, newUser } from '../helpers/client.js';

describe('a realm created through the admin CLI', () => {
  it('serves its owner and users created later', async () => {
    const { owner, subdomain } = await newRealm('smoke');
    const me = await owner.get('/users/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ result: 'success', msg: '', role: 100, is_owner: true, full_name: 'Olivia Owner' });
    const bob = await newUser(subdomain, 'Bob Builder');
    const bobMe = await bob.get('/users/me');
    expect(bobMe.status).toBe(200);
    expect(bobMe.body.user_id).toBe(bob.userId);
  });
});
