// Before first paint: a light or dark theme the person chose wins over the system setting.
try {
  const theme = localStorage.getItem("theme");
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
} catch {
  // Storage refused (private mode): follow the system setting.
}
