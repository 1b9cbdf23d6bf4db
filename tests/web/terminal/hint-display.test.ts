import { describe, expect, it } from 'vitest';
import { editorOnScreen } from './editor-setup.js';

describe('grey argument hints on the screen', () => {
  it('shows the hint after the line and shrinks it as arguments are typed, cut at the end of the row', () => {
    const full = 'key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]';
    const { screen, type } = editorOnScreen();
    const room = (line: string): number => 80 - '127.0.0.1:6379> '.length - line.length;
    type('SET ');
    expect(screen.grey()).toBe(full.slice(0, room('SET ')));
    expect(screen.col).toBe('127.0.0.1:6379> SET '.length);
    type('k');
    expect(screen.grey()).toBe(' ' + full.slice('key '.length).slice(0, room('SET k') - 1));
    type(' v ');
    expect(screen.grey()).toBe(full.slice('key value '.length).slice(0, room('SET k v ')));
    expect(screen.text()[0]).toHaveLength(80);
  });

  it('cuts the hint at the end of the row, as redis-cli 7.0 did on a terminal 40 columns wide', () => {
    // redis-cli -p 16399 on a 40-column pty, after typing "SET k": " value [NX|XX] [GE" in grey.
    const { screen, type } = editorOnScreen({ cols: 40, prompt: '127.0.0.1:16399> ' });
    type('SET k');
    expect(screen.grey()).toBe(' value [NX|XX] [GE');
    expect(screen.text()).toEqual(['127.0.0.1:16399> SET k value [NX|XX] [GE']);
    expect([screen.row, screen.col]).toEqual([0, 22]);
  });

  it('shows no hint once the line reaches the end of the row', () => {
    const { screen, type } = editorOnScreen({ cols: 24, prompt: 'redis:6379> ' });
    type('SET key abcd');
    expect(screen.grey()).toBe('');
    expect([screen.row, screen.col]).toEqual([1, 0]);
    type('\x7f');
    expect(screen.grey()).toBe(' ');
  });

  it('shows no hint for an unknown command and leaves none behind after Enter', () => {
    const { screen, type } = editorOnScreen();
    type('FOO bar');
    expect(screen.grey()).toBe('');
    type('\x15GET ');
    expect(screen.grey()).toBe('key');
    type('a\r');
    expect(screen.grey()).toBe('');
    expect(screen.text()).toEqual(['127.0.0.1:6379> GET a']);
  });

  it('follows the line through history and completion', () => {
    const { screen, type } = editorOnScreen({ history: ['EXPIRE k 10'] });
    type('\x1b[A');
    expect(screen.grey()).toBe(' [NX|XX|GT|LT]');
    type('\x15lpu', '\t');
    expect(screen.grey()).toBe(' key element [element ...]');
  });

  it('shows nothing without a program that gives hints', () => {
    const { screen, type } = editorOnScreen({ assist: null });
    type('SET ');
    expect(screen.grey()).toBe('');
  });
});
