/**
 * Application passwords: 24 random alphanumerics, shown once, stored as a keyed SHA-256. A slow password
 * hash would cost tens of milliseconds on every request and buys nothing for a 142-bit random key.
 */
import { createHmac, randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const APPLICATION_PASSWORD_LENGTH = 24;

/** WordPress records application-password use at most once a day. */
export const USAGE_RECORD_INTERVAL_MS = 24 * 60 * 60 * 1000;

export function generateApplicationPassword(): string {
  let password = '';
  for (let i = 0; i < APPLICATION_PASSWORD_LENGTH; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  return password;
}

/** WordPress ignores everything but letters and digits in a presented password ("abcd efgh …" works). */
export const normaliseApplicationPassword = (password: string): string => password.replace(/[^a-z\d]/gi, '');

export function hashApplicationPassword(secret: string, password: string): string {
  return createHmac('sha256', secret).update(normaliseApplicationPassword(password)).digest('hex');
}

/** WordPress shows the password in groups of four. */
export const chunkPassword = (password: string): string => password.replace(/(.{4})(?=.)/g, '$1 ');
