// Every page: a form with data-confirm asks before it is sent (the words are the form's own attribute, so no
// inline handler is needed; the Content-Security-Policy refuses inline script).
document.addEventListener("submit", e => {
  const form = e.target.closest("form[data-confirm]");
  if (form && !window.confirm(form.dataset.confirm)) e.preventDefault();
});

// The language switcher goes as soon as a language is chosen (its button stays for keyboards without scripts).
document.addEventListener("change", e => {
  if (e.target.id === "language-choice") e.target.form.submit();
});
