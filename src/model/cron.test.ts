import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextCronTime, parseCronSchedule } from './cron.js';

// Expected values are robfig/cron v3.0.1's answers (ParseStandard("TZ=UTC " + spec), then
// Next) for the same inputs; a differential run over 3000 random specs agreed as well.
const FROM = Date.parse('2024-03-15T10:17:42.500Z'); // a Friday

describe('nextCronTime', () => {
  const cases: [spec: string, next: string | null][] = [
    ['0 9 * * mon-fri', '2024-03-18T09:00:00Z'],
    ['@daily', '2024-03-16T00:00:00Z'],
    ['@midnight', '2024-03-16T00:00:00Z'],
    ['@hourly', '2024-03-15T11:00:00Z'],
    ['@weekly', '2024-03-17T00:00:00Z'],
    ['@monthly', '2024-04-01T00:00:00Z'],
    ['@yearly', '2025-01-01T00:00:00Z'],
    ['@annually', '2025-01-01T00:00:00Z'],
    ['*/15 * * * *', '2024-03-15T10:30:00Z'],
    ['0 22 * * sat,sun', '2024-03-16T22:00:00Z'],
    ['0 0 31 * *', '2024-03-31T00:00:00Z'],
    ['*/7 3-5 * jan,jul *', '2024-07-01T03:00:00Z'],
    // Day of month and day of week, both restricted: either one matches.
    ['0 0 13 * 5', '2024-03-22T00:00:00Z'],
    ['0 0 1 * 1', '2024-03-18T00:00:00Z'],
    ['59 23 31 12 *', '2024-12-31T23:59:00Z'],
    ['0 0 */2 * *', '2024-03-17T00:00:00Z'],
    ['5/20 * * * *', '2024-03-15T10:25:00Z'],
    ['0 12 1-7 * */2', '2024-03-16T12:00:00Z'],
    ['1,,2 * * * *', '2024-03-15T11:01:00Z'],
    // Leap day: four years on, within the five years searched.
    ['30 4 29 2 *', '2028-02-29T04:30:00Z'],
    ['  0 9 * * *  ', '2024-03-16T09:00:00Z'],
    ['@every 90m', '2024-03-15T11:47:42Z'],
    // Never fires: Go returns the zero time.
    ['0 0 30 2 *', null],
    [', * * * *', null],
  ];
  for (const [spec, next] of cases) {
    it(spec, () => {
      const got = nextCronTime(parseCronSchedule(spec), FROM);
      assert.equal(got === null ? null : new Date(got).toISOString().replace('.000', ''), next);
    });
  }

  it('is strictly after the given time', () => {
    const at = Date.parse('2024-03-15T09:00:00Z');
    assert.equal(nextCronTime(parseCronSchedule('0 9 * * *'), at), Date.parse('2024-03-16T09:00:00Z'));
    assert.equal(nextCronTime(parseCronSchedule('0 9 * * *'), at - 1), at);
  });
});

describe('parseCronSchedule errors', () => {
  const cases: [spec: string, message: string][] = [
    ['*', 'expected exactly 5 fields, found 1: [*]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['', 'expected exactly 5 fields, found 0: []'],
    ['TZ=Europe/Paris 0 9 * * *', 'expected exactly 5 fields, found 6: [TZ=Europe/Paris 0 9 * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['0 0 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['0 0 * * 7', 'end of range (7) above maximum (6): 7'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['1/2/3 * * * *', 'too many slashes: 1/2/3'],
    ['a * * * *', 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'],
    ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['99999999999999999999 * * * *', 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range'],
    ['@dailyx', 'unrecognized descriptor: @dailyx'],
    ['@every 1 2', 'failed to parse duration @every 1 2: time: unknown unit " " in duration "1 2"'],
  ];
  for (const [spec, message] of cases) it(JSON.stringify(spec), () => assert.throws(() => parseCronSchedule(spec), { message }));
});
