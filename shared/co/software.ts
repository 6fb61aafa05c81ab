/**
 * The software that issues the documents, as DIAN wants it on every representación gráfica: the
 * maker's name and NIT and the software's name. It is the deployment's (whoever runs this service
 * issues with it), so it comes from the configuration (EINV_SOFTWARE_*, shared/config.ts), never
 * from a company's settings.
 */
import { nitCheckDigit } from "./check-digit.ts";

export interface SoftwareMaker {
  /** The software's name. */
  name: string;
  /** Its maker's legal name. */
  maker: string;
  /** Its maker's NIT, digits only, without the check digit. */
  makerNit: string;
}

/** What a local run prints: this project, made by nobody real (set EINV_SOFTWARE_* in production). */
export const DEMO_SOFTWARE: SoftwareMaker = {
  name: "einvoicing-service",
  maker: "Fabricante de software de demostración",
  makerNit: "900000001",
};

/** "Software einvoicing-service · Fabricante: … NIT 900000001-7", as printed. */
export function softwareLine(software: SoftwareMaker): string {
  const dv = nitCheckDigit(software.makerNit);
  return `Software: ${software.name} · Fabricante del software: ${software.maker}, NIT ${software.makerNit}${dv === null ? "" : `-${dv}`}`;
}
