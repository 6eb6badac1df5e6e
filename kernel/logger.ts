/**
 * Structured JSON logs. One logger is made at start and passed down; each
 * request gets a child carrying its request id.
 */
import winston from 'winston';

export type Logger = winston.Logger;

export function createLogger(options: { level: string; service: string; silent?: boolean; stream?: NodeJS.WritableStream }): Logger {
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new winston.transports.Console();
  return winston.createLogger({
    level: options.level,
    silent: options.silent ?? false,
    defaultMeta: { service: options.service },
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    transports: [transport],
  });
}
