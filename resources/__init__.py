"""memevo.resources: data shipped with the program (background sentences, skills, translations)."""
