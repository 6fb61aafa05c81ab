/**
 * DIVIPOLA (DANE's division of Colombia) names for the codes documents carry: a municipality is five
 * digits, its first two the department's. The PDF prints them and the DIAN document writes them
 * beside the codes (CityName, CountrySubentity). Only the largest municipalities are named; the
 * departments are all here. Which codes exist at all is DIAN's list: ./code-lists.ts.
 */

const DEPARTMENTS: Record<string, string> = {
  "05": "Antioquia",
  "08": "Atlántico",
  "11": "Bogotá",
  "13": "Bolívar",
  "15": "Boyacá",
  "17": "Caldas",
  "18": "Caquetá",
  "19": "Cauca",
  "20": "Cesar",
  "23": "Córdoba",
  "25": "Cundinamarca",
  "27": "Chocó",
  "41": "Huila",
  "44": "La Guajira",
  "47": "Magdalena",
  "50": "Meta",
  "52": "Nariño",
  "54": "Norte de Santander",
  "63": "Quindío",
  "66": "Risaralda",
  "68": "Santander",
  "70": "Sucre",
  "73": "Tolima",
  "76": "Valle del Cauca",
  "81": "Arauca",
  "85": "Casanare",
  "86": "Putumayo",
  "88": "Archipiélago de San Andrés, Providencia y Santa Catalina",
  "91": "Amazonas",
  "94": "Guainía",
  "95": "Guaviare",
  "97": "Vaupés",
  "99": "Vichada",
};

const CITIES: Record<string, string> = {
  "11001": "Bogotá, D.C.",
  "05001": "Medellín",
  "76001": "Cali",
  "08001": "Barranquilla",
  "13001": "Cartagena",
  "68001": "Bucaramanga",
  "54001": "Cúcuta",
  "66001": "Pereira",
  "17001": "Manizales",
  "73001": "Ibagué",
  "50001": "Villavicencio",
  "47001": "Santa Marta",
};

/** The municipality's name, or undefined when this table does not know it. */
export const cityName = (code: string): string | undefined => CITIES[code];

/** The department of a municipality code (its first two digits), or undefined for an unknown one. */
export const departmentName = (cityCode: string): string | undefined => DEPARTMENTS[cityCode.slice(0, 2)];
