import { describe, expect, it } from 'vitest';
import { shellWorld } from './shell-harness.js';

describe('shell: processes and power', () => {
  it('ps shows this terminal\'s processes; -ef and aux show every one', () => {
    const { run } = shellWorld({ redis: true });
    expect(run('ps')).toBe('    PID TTY          TIME CMD\n   1001 pts/0    00:00:00 bash\n   1002 pts/0    00:00:00 ps\n');
    expect(run('ps -ef')).toBe(
      'UID          PID    PPID  C STIME TTY          TIME CMD\n' +
        'root        1000       1  0 00:00 ?        00:00:00 redis-server *:6379\n' +
        'root        1001       1  0 00:00 pts/0    00:00:00 -bash\n' +
        'root        1003    1001  0 00:00 pts/0    00:00:00 ps -ef\n',
    );
    const aux = run('ps aux').split('\n');
    expect(aux[0]).toBe('USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND');
    // On an 80-column terminal ps cuts its lines, as procps does.
    expect(aux[1]).toMatch(/^root {8}1000 {2}0\.0 {2}0\.0 +\d+ +\d+ \? {8}Ssl {2}00:00 {3}0:00 redis-server $/);
    expect(aux[1]!.length).toBe(80);
    expect(aux[2]).toBe('root        1001  0.0  0.0   7236  3968 pts/0    Ss   00:00   0:00 -bash');
    expect(aux[3]).toBe('root        1004  0.0  0.0  11084  4480 pts/0    R+   00:00   0:00 ps aux');
    expect(run('ps --sort')).toContain('error: unknown gnu long option\n\nUsage:\n ps [options]\n');
  });

  it('kill -9 removes redis-server at once; ps no longer lists it', () => {
    const { world, run } = shellWorld({ redis: true });
    expect(run('kill -9 1000')).toBe('');
    expect(world.redis('redis')).toBeUndefined();
    expect(run('ps -e')).toBe('    PID TTY          TIME CMD\n   1001 pts/0    00:00:00 bash\n   1002 pts/0    00:00:00 ps\n');
    expect(run('redis-cli ping')).toBe('Could not connect to Redis at 127.0.0.1:6379: Connection refused\n');
    expect(world.trace.find('exit', 'redis').map((e) => e.text)).toContain('1000 redis-server killed 137');
  });

  it('kill sends SIGTERM by default: redis-server shuts down cleanly', () => {
    const { world, run } = shellWorld({ redis: true });
    expect(run('kill 1000')).toBe('');
    world.advance(10);
    expect(world.redis('redis')).toBeUndefined();
    expect(world.trace.find('log', 'redis').map((e) => e.text)).toContain('Received SIGTERM scheduling shutdown...');
  });

  it('kill prints bash\'s errors and its signal list', () => {
    const { run } = shellWorld({ redis: true });
    expect(run('kill 123')).toBe('bash: kill: (123) - No such process\n');
    expect(run('kill 123 456')).toBe('bash: kill: (123) - No such process\nbash: kill: (456) - No such process\n');
    expect(run('kill')).toBe('kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n');
    expect(run('kill abc')).toBe('bash: kill: abc: arguments must be process or job IDs\n');
    expect(run('kill %1')).toBe('bash: kill: %1: no such job\n');
    expect(run('kill -FOO 1000')).toBe('bash: kill: FOO: invalid signal specification\n');
    expect(run('kill -l 9')).toBe('KILL\n');
    expect(run('kill -l KILL')).toBe('9\n');
    expect(run('kill -l').split('\n')[0]).toBe(' 1) SIGHUP\t 2) SIGINT\t 3) SIGQUIT\t 4) SIGILL\t 5) SIGTRAP');
    expect(run('kill -STOP 1000')).toBe('bash: kill: SIGSTOP: this signal is not simulated (KILL, TERM and INT are)\n');
    expect(run('kill -HUP 1000')).toBe('');
    expect(run('kill -s KILL 1000')).toBe('');
    expect(run('kill -n 9 1000')).toBe('bash: kill: (1000) - No such process\n');
  });

  it('the login shell ignores SIGTERM, as an interactive bash does', () => {
    const { run } = shellWorld();
    expect(run('kill $$')).toBe('');
    expect(run('echo still here')).toBe('still here\n');
  });

  it('poweroff leaves only sim verbs until sim power-on; the page cache is gone', () => {
    const { world, shell, run } = shellWorld({ redis: true });
    run('echo unsynced > /root/note');
    expect(run('poweroff')).toBe('redis is powered off: only sim commands work here (sim power-on redis)\n');
    expect(shell.prompt).toBe('(redis is powered off) $ ');
    expect(run('ls')).toBe('redis is powered off: only sim commands work here (sim power-on redis)\n');
    expect(world.host('redis').processes.size).toBe(0);
    expect(run('sim power-on redis')).toBe('redis: booted; nothing runs until you start it\n');
    expect(shell.prompt).toBe('root@redis:~# ');
    expect(run('ls /root')).toBe('');
    // A new boot, a new login shell; pids go on from where they were.
    expect(run('ps -e')).toBe('    PID TTY          TIME CMD\n   1002 pts/0    00:00:00 bash\n   1003 pts/0    00:00:00 ps\n');
    expect(run('cat /etc/redis/redis.conf')).toContain('port 6379\n');
  });

  it('a program killed from elsewhere ends with bash\'s message', () => {
    const sw = shellWorld();
    const sleeper = (): { signal(s: 'KILL' | 'TERM'): void } => [...sw.world.host('redis').processes.values()].find((p) => p.name === 'sleep')!;
    sw.shell.run('sleep 100');
    sw.world.advance(1000);
    expect(sw.shell.busy).toBe(true);
    sleeper().signal('KILL');
    sw.world.advance(1);
    expect(sw.shell.busy).toBe(false);
    sw.shell.run('sleep 100');
    sw.world.advance(1000);
    sleeper().signal('TERM');
    expect(sw.shell.busy).toBe(false);
    expect(sw.transcript).toBe('Killed\nTerminated\n');
    expect(sw.run('echo $?')).toBe('143\n');
  });

  it('date, hostname and sleep use the world\'s clock', () => {
    const { world, run } = shellWorld();
    expect(run('date')).toBe('Thu Jan  1 00:00:00 UTC 2026\n');
    expect(run('date +%s')).toBe('1767225600\n');
    expect(run('date -R')).toBe('Thu, 01 Jan 2026 00:00:00 +0000\n');
    expect(run('hostname')).toBe('redis\n');
    const t0 = world.kernel.now;
    expect(run('sleep 1.5')).toBe('');
    expect(world.kernel.now - t0).toBe(1_500_000);
    expect(run('sleep')).toBe("sleep: missing operand\nTry 'sleep --help' for more information.\n");
    expect(run('sleep x')).toBe("sleep: invalid time interval 'x'\nTry 'sleep --help' for more information.\n");
  });
});
