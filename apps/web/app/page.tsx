import { redirect } from "next/navigation";

// The app pages send signed-out visitors on to /sign-in.
export default function Home() {
  redirect("/agents");
}
