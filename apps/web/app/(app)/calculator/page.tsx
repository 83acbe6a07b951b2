import type { Metadata } from "next";
import { CalculatorView } from "../../../components/calculator/calculator-view";
import "../runs/[id]/report/report.css";
import "./calculator.css";

export const metadata: Metadata = { title: "Capacity calculator" };

export default function CalculatorPage() {
  return <CalculatorView />;
}
