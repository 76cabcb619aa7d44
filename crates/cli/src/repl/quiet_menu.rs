//! The completion menu without reedline's "NO RECORDS FOUND": a [`ColumnarMenu`] that, while it
//! holds no suggestion (nothing matches, a slow or failed server answered nothing), draws
//! nothing, reserves no row and keeps the prompt indicator — an empty completion is silent.

use reedline::{
    ColumnarMenu, Completer, Editor, Menu, MenuEvent, MenuSettings, Painter, Suggestion,
};

/// A columnar menu that is invisible while empty.
pub struct QuietMenu {
    inner: ColumnarMenu,
}

impl QuietMenu {
    pub fn new(inner: ColumnarMenu) -> Self {
        QuietMenu { inner }
    }

    fn empty(&self) -> bool {
        self.inner.get_values().is_empty()
    }
}

impl Menu for QuietMenu {
    fn settings(&self) -> &MenuSettings {
        self.inner.settings()
    }
    fn is_active(&self) -> bool {
        self.inner.is_active()
    }
    fn set_active(&mut self, active: bool) {
        self.inner.set_active(active);
    }
    fn clear_input(&mut self) {
        self.inner.clear_input();
    }
    fn on_activate(&mut self) {
        self.inner.on_activate();
    }
    fn on_deactivate(&mut self) {
        self.inner.on_deactivate();
    }
    fn handle_menu_event(&mut self, event: &MenuEvent) {
        self.inner.handle_menu_event(event);
    }
    fn menu_event(&mut self, event: MenuEvent) {
        self.inner.menu_event(event);
    }
    fn can_quick_complete(&self) -> bool {
        self.inner.can_quick_complete()
    }
    fn can_partially_complete(
        &mut self,
        values_updated: bool,
        editor: &mut Editor,
        completer: &mut dyn Completer,
    ) -> bool {
        self.inner
            .can_partially_complete(values_updated, editor, completer)
    }
    fn update_values(&mut self, editor: &mut Editor, completer: &mut dyn Completer) {
        self.inner.update_values(editor, completer);
    }
    fn reset_position(&mut self) {
        self.inner.reset_position();
    }
    fn reload(&mut self, updated: bool, editor: &mut Editor, completer: &mut dyn Completer) {
        self.inner.reload(updated, editor, completer);
    }
    fn update_working_details(
        &mut self,
        editor: &mut Editor,
        completer: &mut dyn Completer,
        painter: &Painter,
    ) {
        self.inner
            .update_working_details(editor, completer, painter);
    }
    fn replace_in_buffer(&self, editor: &mut Editor) {
        self.inner.replace_in_buffer(editor);
    }
    fn menu_required_lines(&self, terminal_columns: u16) -> u16 {
        if self.empty() {
            0
        } else {
            self.inner.menu_required_lines(terminal_columns)
        }
    }
    fn menu_string(&self, available_lines: u16, use_ansi_coloring: bool) -> String {
        if self.empty() {
            String::new()
        } else {
            self.inner.menu_string(available_lines, use_ansi_coloring)
        }
    }
    fn min_rows(&self) -> u16 {
        if self.empty() {
            0
        } else {
            self.inner.min_rows()
        }
    }
    fn get_values(&self) -> &[Suggestion] {
        self.inner.get_values()
    }
    fn results_are_provisional(&self) -> bool {
        self.inner.results_are_provisional()
    }
    fn is_awaiting_first_answer(&self) -> bool {
        // An empty menu claims no indicator and no rows, like one still waiting.
        self.empty() || self.inner.is_awaiting_first_answer()
    }
    fn set_cursor_pos(&mut self, pos: (u16, u16)) {
        self.inner.set_cursor_pos(pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reedline::{MenuBuilder, Span};

    struct Fixed(Vec<&'static str>);

    impl Completer for Fixed {
        fn complete(&mut self, _line: &str, pos: usize) -> reedline::CompletionResult {
            let values: Vec<Suggestion> = self
                .0
                .iter()
                .map(|v| Suggestion {
                    value: (*v).to_owned(),
                    span: Span::new(0, pos),
                    ..Suggestion::default()
                })
                .collect();
            reedline::CompletionResult::fresh(values)
        }
    }

    fn menu_after(values: Vec<&'static str>) -> QuietMenu {
        let mut menu = QuietMenu::new(ColumnarMenu::default().with_name("m"));
        let mut editor = Editor::default();
        let mut completer = Fixed(values);
        menu.menu_event(MenuEvent::Activate(false));
        menu.update_values(&mut editor, &mut completer);
        menu
    }

    #[test]
    fn an_empty_menu_draws_nothing_and_reserves_no_row() {
        let menu = menu_after(Vec::new());
        assert_eq!(menu.menu_string(10, false), "");
        assert_eq!(menu.menu_required_lines(80), 0);
        assert!(!menu.is_visible());
        // The wrapped menu would have said it.
        let mut plain = ColumnarMenu::default().with_name("m");
        plain.menu_event(MenuEvent::Activate(false));
        plain.update_values(&mut Editor::default(), &mut Fixed(Vec::new()));
        assert!(plain.menu_string(10, false).contains("NO RECORDS FOUND"));
    }

    #[test]
    fn a_menu_with_values_is_the_columnar_menu() {
        let menu = menu_after(vec!["alpha", "beta"]);
        assert!(menu.get_values().len() == 2);
        assert!(menu.is_visible());
    }
}
