import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DatabaseLockedError } from '../../src/index.js';
import { lockFolder } from '../../src/storage/driver/folder-lock.js';
import { TEST_DRIVERS } from '../support/databases.js';
import { type Opener, type Reply, startOpener } from './support/folder-opener.js';

/** Fails, never skips, where no network namespace can be made: CI runs as root. */
function assertNamespacesCanBeMade(): void {
  const probe = spawnSync('unshare', ['--net', 'true'], { encoding: 'utf8' });
  assert.equal(
    probe.status,
    0,
    `this test makes a network namespace with 'unshare --net' and must run as root on Linux ` +
      `(uid ${process.getuid?.()}): ${probe.error?.message ?? probe.stderr.trim()}`,
  );
}

function assertLockedBy(error: unknown, pid: number): true {
  assert.ok(error instanceof DatabaseLockedError, String(error));
  assert.equal(error.details.pid, pid);
  assert.equal(error.details.sameProcess, false);
  return true;
}

function assertRefused(reply: Reply, pid: number): void {
  assert.equal(reply.kind, 'refused', JSON.stringify(reply));
  const value = reply.value as { code: string; details: { pid: number } };
  assert.deepEqual([value.code, value.details.pid], ['DATABASE_LOCKED', pid]);
}

// The lock itself, without PGlite: one child, in a network namespace of its own, for the file.
if (TEST_DRIVERS.includes('pglite')) {
  describe('embedded folder lock across network namespaces (containers sharing a volume; as root)', () => {
    const root = mkdtempSync(join(tmpdir(), 'tidemark-netns-'));
    // Longer than a socket path may be (107 bytes), so the lock is reached through the folder's descriptor.
    const deep = join(root, 'd'.repeat(60), 'e'.repeat(60));
    let child: Opener | null = null;
    let tag = 0;
    const inChild = () => {
      assert.ok(child, 'the namespaced child did not start');
      return child;
    };

    before(async () => {
      assertNamespacesCanBeMade();
      mkdirSync(deep, { recursive: true });
      child = startOpener(join(root, 'unused'), { netns: true });
      const reply = await child.send('lock', 'probe', join(root, 'probe'));
      assert.equal(reply.kind, 'owner', `${JSON.stringify(reply)} ${child.stderr()}`);
      await child.send('close', 'probe-close');
      const pid = child.child.pid as number;
      assert.notEqual(
        readlinkSync(`/proc/${pid}/ns/net`),
        readlinkSync('/proc/self/ns/net'),
        'the child runs in a network namespace of its own',
      );
    });
    after(async () => {
      child?.child.kill('SIGKILL');
      await child?.exited;
      rmSync(root, { recursive: true, force: true });
    });

    for (const [name, path] of [
      ['a folder', () => join(root, 'a')],
      ['a folder whose socket path is too long to bind directly', () => join(deep, 'a')],
    ] as const) {
      test(`${name} held inside another namespace is refused outside it, and one held outside is refused inside`, async () => {
        const opener = inChild();
        const pid = opener.child.pid as number;
        const theirs = path();
        const ours = `${theirs}-ours`;
        tag++;
        assert.equal((await opener.send('lock', `t${tag}`, theirs)).kind, 'owner', opener.stderr());
        await assert.rejects(lockFolder(theirs), (e: unknown) => assertLockedBy(e, pid));
        const held = await lockFolder(ours);
        try {
          assertRefused(await opener.send('lock', `u${tag}`, ours), process.pid);
        } finally {
          await held.release();
        }
        await opener.send('close', `c${tag}`);
        // Both let go: each folder opens again, and holds nothing of the lock's.
        const again = await lockFolder(theirs);
        await again.release();
        assert.deepEqual([readdirSync(theirs), readdirSync(ours)], [[], []]);
      });
    }

    test('a folder whose owner in another namespace was killed (its socket file left behind) opens at once outside it', async () => {
      const opener = inChild();
      const folder = join(deep, 'killed');
      assert.equal((await opener.send('lock', 'k', folder)).kind, 'owner', opener.stderr());
      opener.child.kill('SIGKILL');
      await opener.exited;
      child = null;
      assert.ok(readdirSync(folder).includes('tidemark.sock'), 'the dead owner left its socket file');
      const held = await lockFolder(folder);
      await held.release();
      assert.deepEqual(readdirSync(folder), []);
    });
  });
}
