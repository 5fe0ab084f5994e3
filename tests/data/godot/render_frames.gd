# Renders a scene in Godot 3 and saves the viewport after each of the
# drawn-frame counts asked for (spritz's engine test,
# tests/import/godot_engine_test.cpp). Run as
#   godot3 --path PROJECT --video-driver GLES3 --fixed-fps 60 --disable-vsync \
#     -s render_frames.gd --scene=res://SCENE.tscn --frames=1,30,90 --out=DIR/frame_%d.png
# With a fixed step, a particle born at frame 0 has moved exactly k / 60 s
# when k frames have been drawn: frames are counted as the visual server
# finishes drawing them, not as the main loop turns.
extends SceneTree

var drawn = 0
var targets = []
var out_pattern = "frame_%d.png"

func _init():
	var scene_path = ""
	for a in OS.get_cmdline_args():
		if a.begins_with("--scene="):
			scene_path = a.substr(8)
		elif a.begins_with("--frames="):
			for f in a.substr(9).split(","):
				targets.append(int(f))
		elif a.begins_with("--out="):
			out_pattern = a.substr(6)
	var scene = load(scene_path)
	if scene == null or targets.empty():
		printerr("render_frames.gd: cannot load ", scene_path, " or no --frames")
		quit(2)
		return
	get_root().add_child(scene.instance())
	VisualServer.connect("frame_post_draw", self, "_drawn")

func _drawn():
	drawn += 1
	if targets.has(drawn):
		var img = get_root().get_texture().get_data()
		img.flip_y()
		img.save_png(out_pattern % drawn)
	if drawn >= targets.max():
		quit(0)
