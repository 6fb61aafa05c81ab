/**
 * `WcfDianCustomerServices.svc?wsdl`: a short WSDL 1.1 naming the operations the stand-in serves,
 * their SOAP 1.2 actions ([D] IWcfDianCustomerServices.cs, namespace http://wcf.dian.colombia) and its
 * address. Not DIAN's full WSDL (which also describes WS-Policy and the message types): enough for a
 * person or a tool to see what is there.
 */
import { ACTION_BASE } from "./answers.ts";
import { OPERATIONS } from "./envelope.ts";
import { escapeXml } from "./xml-read.ts";

export function wsdl(address: string): string {
  const operations = OPERATIONS.map(
    (op) =>
      `<wsdl:operation name="${op}"><soap12:operation soapAction="${ACTION_BASE}${op}" style="document"/>` +
      '<wsdl:input><soap12:body use="literal"/></wsdl:input><wsdl:output><soap12:body use="literal"/></wsdl:output></wsdl:operation>',
  ).join("");
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<wsdl:definitions name="WcfDianCustomerServices" targetNamespace="http://wcf.dian.colombia" ' +
    'xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/" xmlns:tns="http://wcf.dian.colombia">' +
    `<wsdl:binding name="WSHttpBinding_IWcfDianCustomerServices" type="tns:IWcfDianCustomerServices"><soap12:binding transport="http://schemas.xmlsoap.org/soap/http"/>${operations}</wsdl:binding>` +
    '<wsdl:service name="WcfDianCustomerServices"><wsdl:port name="WSHttpBinding_IWcfDianCustomerServices" binding="tns:WSHttpBinding_IWcfDianCustomerServices">' +
    `<soap12:address location="${escapeXml(address)}"/></wsdl:port></wsdl:service></wsdl:definitions>`
  );
}
