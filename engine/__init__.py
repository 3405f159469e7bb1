"""The pure rules of the game: state, orders, turn resolution, spells, views."""
